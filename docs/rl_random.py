"""Random masked policies in the learning environment, and the same policy as a bot on a server.

    python docs/rl_random.py                                # 3 games each of classic, karma and wikibooks
    python docs/rl_random.py --preset linz --players 4 --games 10 --seed 1
    python docs/rl_random.py serve --port 7433 --create --games 3   # shithead-bot's flags

Needs the rl extra: pip install -e '.[rl]'. See docs/RL.md.
"""

import argparse
import sys

from client.rl import shithead_v0
from client.rl.policy_bot import RandomPolicy, run


def play(preset: str, players: int, games: int, seed: int) -> None:
    env = shithead_v0.env(preset=preset, players=players)
    policies = {agent: RandomPolicy(seed + i) for i, agent in enumerate(env.possible_agents)}
    for game in range(games):
        env.reset(seed=seed + game)
        steps, capped, total = 0, False, dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            total[agent] += reward
            if terminated or truncated:
                capped = info["capped"]
                env.step(None)  # the game is over: every agent steps None once and leaves
                continue
            env.step(policies[agent](obs["observation"], obs["action_mask"]))
            steps += 1
        rewards = " ".join(f"{a}:{r:+.2f}" for a, r in total.items())
        print(f"{preset} game {game}: {steps} actions{' (capped)' if capped else ''}, rewards {rewards}")


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        return run(RandomPolicy(), argv[1:])  # a trained policy goes here instead
    p = argparse.ArgumentParser(description="Random masked policies in shithead_v0.")
    p.add_argument("--preset", help="one preset (default: classic, karma and wikibooks)")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--games", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for preset in [args.preset] if args.preset else ["classic", "karma", "wikibooks"]:
        play(preset, args.players, args.games, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
