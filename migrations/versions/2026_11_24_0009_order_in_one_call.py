"""An order in one call: `wif_take_order` takes the game's lock, checks that the game is
still at the head the referee decided the order on, that the signer still holds its
seat with the key and token it used, that the seq is new and `prev` an event of the
chain, and then writes the events, the snapshots due, the command, the order, the new
head and the notifications, all in one statement (service/store/order_call.py).

Revision ID: 0009
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FUNCTION = """
CREATE FUNCTION wif_take_order(
    p_game text, p_head_seq bigint, p_head_hash text, p_version bigint,
    p_player text, p_token_hash text, p_public_key text, p_settings jsonb,
    p_seq bigint, p_order_hash text, p_prev text,
    p_events json, p_snapshots json, p_command json,
    p_envelope jsonb, p_result jsonb,
    p_status text, p_next_deadline timestamptz, p_step_started_at timestamptz,
    p_now timestamptz, p_moves json, p_events_message jsonb, p_gm_owner text
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
    g record;
    stored record;
    seat record;
    first_event bigint;
    new_head_seq bigint;
    new_head_hash text;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(p_game, 0));
    SELECT version, head_seq, head_hash INTO g FROM games WHERE id = p_game;
    IF NOT FOUND THEN
        RETURN json_build_object('status', 'no_game');
    END IF;
    SELECT order_hash, result INTO stored FROM orders
        WHERE game_id = p_game AND player_id = p_player AND seq = p_seq;
    IF FOUND THEN
        RETURN json_build_object('status', 'stored', 'order_hash', stored.order_hash,
                                  'result', stored.result);
    END IF;
    SELECT public_key, active, token_hash, settings INTO seat FROM players
        WHERE game_id = p_game AND id = p_player;
    IF NOT FOUND OR NOT seat.active OR seat.token_hash <> p_token_hash
            OR seat.public_key <> p_public_key OR seat.settings <> p_settings THEN
        RETURN json_build_object('status', 'seat_changed');
    END IF;
    IF g.head_seq <> p_head_seq OR g.head_hash <> p_head_hash OR g.version <> p_version THEN
        -- Another process moved the game on: the events since the head the referee
        -- decided on (if that head is in the chain and few came since), so it can catch
        -- up and call again. `data` stays JSON text, its keys in the order written.
        IF g.head_seq > p_head_seq AND g.head_seq - p_head_seq <= 64 AND EXISTS (
                SELECT 1 FROM events WHERE game_id = p_game AND seq = p_head_seq
                AND hash = p_head_hash) THEN
            RETURN json_build_object('status', 'moved', 'version', g.version,
                'events', (SELECT json_agg(json_build_object(
                    'seq', e.seq, 'turn', e.turn, 'impulse', e.impulse, 'step', e.step,
                    'kind', e.kind, 'actor', e.actor, 'text', e.text, 'data', e.data,
                    'at_us', (extract(epoch FROM e.at) * 1000000)::bigint,
                    'rules_version', e.rules_version, 'hash', e.hash) ORDER BY e.seq)
                    FROM events e WHERE e.game_id = p_game AND e.seq > p_head_seq));
        END IF;
        RETURN json_build_object('status', 'moved', 'version', g.version);
    END IF;
    IF p_prev <> g.head_hash AND NOT EXISTS (
            SELECT 1 FROM events WHERE game_id = p_game AND hash = p_prev) THEN
        RETURN json_build_object('status', 'unknown_prev');
    END IF;

    INSERT INTO events (game_id, seq, turn, impulse, step, kind, actor, text, data,
                        rules_version, hash, at)
        SELECT p_game, e.seq, e.turn, e.impulse, e.step, e.kind, e.actor, e.text, e.data,
               e.rules_version, e.hash, e.at
        FROM json_to_recordset(p_events) AS e(seq bigint, turn integer, impulse integer,
            step text, kind text, actor text, text text, data json, rules_version text,
            hash text, at timestamptz);
    SELECT min(e.seq), max(e.seq) INTO first_event, new_head_seq
        FROM json_to_recordset(p_events) AS e(seq bigint);
    SELECT e.hash INTO new_head_hash FROM json_to_recordset(p_events) AS e(seq bigint, hash text)
        WHERE e.seq = new_head_seq;

    INSERT INTO snapshots (game_id, seq, turn, impulse, state)
        SELECT p_game, s.seq, s.turn, s.impulse, s.state
        FROM json_to_recordset(p_snapshots) AS s(seq bigint, turn integer, impulse integer,
                                                 state json);

    INSERT INTO commands (game_id, first_event, kind, actor, body, at, position, trigger,
                          extra, signed)
        VALUES (p_game, first_event, p_command->>'kind', p_command->'actor',
                p_command->'body', (p_command->>'at')::timestamptz, p_command->'position',
                p_command->>'trigger', p_command->'extra', p_command->'signed');

    INSERT INTO orders (game_id, player_id, seq, order_hash, envelope, result, first_event)
        VALUES (p_game, p_player, p_seq, p_order_hash, p_envelope, p_result, first_event);

    UPDATE games SET version = p_version + 1, head_seq = new_head_seq,
                     head_hash = new_head_hash, status = p_status,
                     next_deadline = p_next_deadline, step_started_at = p_step_started_at,
                     updated_at = p_now
        WHERE id = p_game;

    -- "Your move" for each newly awaited player whose webhook is active, every event
    -- for those who asked (and the GM's): the candidates come from the referee.
    INSERT INTO outbox (game_id, id, player_id, kind, payload, attempts, next_attempt_at,
                        failed)
        SELECT p_game, 'msg_move_' || w.player_id || '_' || (p_version + 1), w.player_id,
               'your_move', m.payload::jsonb, 0, p_now, false
        FROM json_to_recordset(p_moves) AS m(player_id text, payload json)
        JOIN webhooks w ON w.game_id = p_game AND w.player_id = m.player_id
        WHERE w.disabled_at IS NULL
        UNION ALL
        SELECT p_game, 'msg_events_' || w.player_id || '_' || (p_version + 1), w.player_id,
               'events', p_events_message, 0, p_now, false
        FROM webhooks w
        WHERE w.game_id = p_game AND w.disabled_at IS NULL AND p_events_message IS NOT NULL
              AND (w.every_event OR w.player_id = p_gm_owner)
        ON CONFLICT DO NOTHING;

    RETURN json_build_object('status', 'taken', 'version', p_version + 1);
END;
$$;
"""


def upgrade() -> None:
    op.execute(FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION wif_take_order(text, bigint, text, bigint, text, text, text, "
               "jsonb, bigint, text, text, json, json, json, jsonb, jsonb, text, timestamptz, "
               "timestamptz, timestamptz, json, jsonb, text)")
