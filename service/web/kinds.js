// Every event name the live stream sends (each SSE event is named after its event's
// kind, so an EventSource needs a listener per name; `onmessage` never fires). The
// same list as service/rules/events.py `EventKind` and docs/api.md; a test
// (tests/test_api_docs.py) keeps the three equal.

export const EVENT_KINDS = Object.freeze([
  "game.created", "seat.taken", "game.started", "game.paused", "game.resumed",
  "game.ended", "deadlines.set", "deadline.passed", "default.forced", "side.dropped_out",
  "side.returned", "side.restored", "state.edited", "player.key_replaced",
  "seat.reopened", "seat.substituted", "gm.played", "rollback.proposed",
  "rollback.consented", "rollback.refused", "rollback.withdrawn", "game.rolled_back",
  "game.imported", "dice.committed", "dice.rolled", "dice.revealed", "dice.recommitted",
  "turn.began", "initiative.rolled", "initiative.reroll_answered",
  "initiative.reroll_closed", "initiative.ranked", "initiative.chosen", "turn.order_set",
  "round.began", "weather.set", "weather.table_set", "impulse.began", "step.began",
  "step.skipped", "side.skipped", "power.declared", "side.done", "impulse.cleaned_up", "rps.granted",
  "turn_end.rolled", "impulse.ended", "turn.ended", "initiative.shifted",
  "production.submitted", "production.applied", "unit.reorganized", "port.repaired",
  "rps.lapsed", "unit.mode_changed", "reserves.released", "report.filed", "unit.moved", "unit.worked",
  "combat.reported", "combat.result_ignored", "hex.disorganized", "reserve.removed",
  "units.retreated", "units.advanced", "unit.step_lost", "unit.eliminated",
  "units.exploit_awarded", "units.turned_face_down", "units.shattered",
  "unit.flew_mission", "combat.rolled", "combat.closed", "combat.resolved", "combat.asked",
  "combat.answered", "combat.no_retreat", "standing.armed",
  "standing.answered", "standing.disarmed", "air.mission_began", "air.window_opened",
  "air.window_skipped", "air.patrolled", "air.flown", "air.intercepted",
  "air.combat_resolved", "air.asked", "air.answered", "air.losses_taken", "air.aa_fired",
  "air.mission_ended",
]);
