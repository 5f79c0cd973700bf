import json
from support import SIDES, full_game, answer_done_steps

DICE = {"mode": "scripted", "script": {"initiative": [5, 8, 5], "weather": [7], "turn_end": [2, 2]}}

async def test_scratch(client):
    game = await full_game(client, "mini", dice=DICE)
    ax, al, co = (game.players[s] for s in SIDES)
    for p in (ax, al, co):
        await p.ok("initiative.reroll", {"demand": False})
    await al.ok("initiative.choose", {"position": "last"})
    await co.ok("initiative.choose", {"position": "before"})
    await co.ok("declare", {"actions": {"ussr": "pass", "china": "pass"}})
    await co.ok("done")
    s = await game.state(ax)
    print("STEP", s["turn"]["step"], s["awaiting"])
    print({u: (v["face_up"], v["mode"], v["orientation"], v["effective"]) for u, v in s["units"].items()})
    print("SUPPLY", json.dumps(s["supply"]))
    print("RPS", {p: v["rps"] for p, v in s["powers"].items()})
    print("REORG", json.dumps(s["reorg"]))
    r = await ax.order("declare", {"actions": {"germany": "land", "italy": "pass"}})
    print(r.status_code, r.text[:500])
    s = await game.state(ax)
    print("STEP", s["turn"]["step"], s["awaiting"])
    print({u: (v["face_up"], v["mode"], v["orientation"], v["effective"]) for u, v in s["units"].items() if v["power"] in ("germany","italy")})
    r = await ax.order("mode", {"changes": [{"unit": "ger-hq-1", "mode": "move"}]})
    print(r.status_code, r.text[:800])
    while True:
        summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        print("AW", summary["awaiting"], summary["position"])
        if summary["awaiting"][0]["step"] == "reorganization": break
        await game.players[summary["awaiting"][0]["side"]].ok("done")
    s = await game.state(ax)
    print("RPS", {p: v["rps"] for p, v in s["powers"].items()})
    print("REORG", json.dumps(s["reorg"]))
    r = await client.get(f"/v1/games/{game.id}/reorg/options", params={"unit": "ger-arm-1"}, headers=ax.headers)
    print("OPTIONS", json.dumps(r.json(), indent=1))
    r = await client.get(f"/v1/games/{game.id}/reorg/options", params={"unit": "ita-inf-1"}, headers=ax.headers)
    print("OPTIONS-ITA", json.dumps(r.json()))
