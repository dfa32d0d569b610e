"""The arguments of `knap play`, `knap sim` and `knap replay`: apart from the commands themselves (play.py), so
that building the parser (every `knap` command, `--help`, shell completion) does not load the runtime."""

from __future__ import annotations

import argparse

from engine.runtime.budget import MAX_ANSWERS_PER_TURN

from .options import DeprecatedAlias, add_output


def add_commands(sub):
    play = sub.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description=(
            "Play a pack at the terminal. Seats without a person are played by bots. The game's log is saved "
            "so that `knap replay` can check it."
        ),
    )
    play.add_argument(
        "pack",
        nargs="?",
        help="a pack folder or built-in pack id (with --resume: the pack's folder, when the save does not find it)",
    )
    play.add_argument(
        "--resume",
        metavar="FILE",
        help="go on with a game saved when a person left it (`q`, Ctrl-C "
        "or the end of input save it, beside the log: knap-game-SEED.save.json), with the same seats, "
        "bots and seed; its log holds the whole game",
    )
    play.add_argument(
        "--players", type=int, default=None, metavar="N", help="how many players (default: the pack's minimum)"
    )
    play.add_argument(
        "--human",
        type=int,
        action="append",
        default=[],
        metavar="SEAT",
        help="a seat played by a person at this terminal (repeatable; default: none)",
    )
    _add_agents(
        play,
        "greedy",
        "the bots of the seats no person plays: one agent for all, or one per seat "
        "(comma-separated, repeated as needed; a person's seat skips its entry)",
    )
    play.add_argument("--bots", action=DeprecatedAlias, dest="agents", instead="--agents")
    play.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the game's random seed: the same seed and answers "
        "play the same game (default: a fresh one, printed at the start)",
    )
    play.add_argument("--log", metavar="FILE", help="write the game log here (default: knap-game-SEED.json)")
    play.add_argument(
        "--oracle",
        choices=["model", "ask"],
        default="model",
        help="who decides physical outcomes (did the tower stand?): the pack's probability model, "
        "or the person at the table, asked at the terminal (`ask`)",
    )
    _add_answer_limit(play)

    sim = sub.add_parser(
        "sim",
        help="simulate many games for balance",
        description=(
            "Play N seeded games with bots and summarise: win rate per seat and agent with 95 % confidence "
            "intervals, the score distribution, game length and how games ended. With --compare, play two "
            "packs (two variants of a game) with the same seeds and show their differences."
        ),
    )
    sim.add_argument("pack", nargs="?", help="a pack folder or built-in pack id")
    sim.add_argument(
        "--compare",
        nargs=2,
        metavar=("PACK_A", "PACK_B"),
        help="instead of PACK: play both packs with the same seeds, agents and player count "
        "(default: the smallest both allow) and show B − A with 95 %% intervals",
    )
    sim.add_argument("-n", "--games", type=int, default=100, help="how many games to play")
    sim.add_argument(
        "--players", type=int, default=None, metavar="N", help="how many players (default: the pack's minimum)"
    )
    _add_agents(sim, "random", "the agents by seat: one for all, or comma-separated, repeated as needed")
    sim.add_argument("--seed", type=int, default=0, help="the first game's seed; game i plays seed SEED+i")
    sim.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: cores); with --backend ray, the CPUs of the local Ray it starts",
    )
    sim.add_argument(
        "--max-rounds",
        type=int,
        default=500,
        metavar="N",
        help="stop a game after this many rounds; it is reported as stalled, with its seed",
    )
    _add_answer_limit(sim)
    sim.add_argument(
        "--log-dir",
        metavar="DIR",
        help="write the logs of stalled games and of games that ended in "
        "an error into DIR, to replay them with `knap replay`",
    )
    sim.add_argument(
        "--out",
        metavar="DIR",
        help="keep the run in the folder DIR: run.json (its settings), games.jsonl (a record per game, written as "
        "games finish) and summary.json at the end; a run stopped half-way goes on with --resume",
    )
    sim.add_argument(
        "--resume",
        action="store_true",
        help="go on with the run kept in --out DIR: only the games it lacks are played, with the settings it was "
        "started with (any other is refused), and the summary is the one an uninterrupted run writes",
    )
    sim.add_argument(
        "--backend",
        choices=["local", "ray"],
        default="local",
        help="where games are played: worker processes here, or on Ray (a local Ray of --jobs CPUs, or the "
        "cluster at --address; needs `pip install 'knapper[ray]'`)",
    )
    sim.add_argument(
        "--address",
        metavar="ADDR",
        help="with --backend ray: join the Ray cluster at ADDR (as `ray.init(address=ADDR)`) instead of starting one",
    )
    add_output(
        sim,
        ["text", "json"],
        "text",
        "the summary",
        ' (JSON with --compare: {"a": summary, "b": summary, "differences": ...})',
    )
    sim.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="show how many games are done, on stderr (default: when stderr is a terminal)",
    )
    sim.add_argument("--logs", action=DeprecatedAlias, dest="log_dir", instead="--log-dir", metavar="DIR")
    sim.add_argument(
        "--json",
        action=DeprecatedAlias,
        dest="json_too",
        spelt="--json FILE",
        instead="--format json --output FILE",
        metavar="FILE",
    )

    replay = sub.add_parser(
        "replay",
        help="replay a game log and check its final state",
        description=(
            "Replay a game log and check that it reaches the final state it records, or check that a saved game "
            "(`Game.save`) loads. Either file may come from anyone: a bad one is reported in one line (the file, "
            "where in it, what is wrong) with exit 1."
        ),
    )
    replay.add_argument(
        "log", metavar="FILE", help="a game log written by `knap play` or `knap sim --log-dir`, or a saved game"
    )
    replay.add_argument(
        "--pack",
        help="the pack folder or id (a log's own pack folder is used only when it lies inside the working folder or the log's folder)",
    )
    replay.add_argument("--show", action="store_true", help="print the log of the replayed game")


def _add_agents(parser, default: str, what: str):
    # the names are not listed here: importing the runtime would slow every command down
    parser.add_argument(
        "--agents", default=default, metavar="NAME[,NAME...]", help=f"{what}; an unknown name lists the agents"
    )


def _add_answer_limit(parser):
    parser.add_argument(
        "--max-answers-per-turn",
        type=int,
        default=MAX_ANSWERS_PER_TURN,
        metavar="N",
        help="stop a game whose turn (or round) goes on for more than N answers without ending; "
        f"it is reported as stalled, with its seed (default: {MAX_ANSWERS_PER_TURN})",
    )
