"""``kinds``: the kinds of claim a registry can hold, and their fields."""

from __future__ import annotations


def add_commands(commands) -> None:
    commands.add_parser("kinds", help="the kinds of claim a registry can hold, and their fields")


def _run_kinds(args) -> int:
    from claimbook import engine
    from claimbook.engine import quantifiers

    for name, spec in engine.SPECS.items():
        print(f"{name}: {spec.description}")
        print(f"  required: {', '.join(spec.required_names()) or '-'}")
        print(
            "  optional: "
            + ", ".join(f"{item.name} ({item.needs})" if item.needs else item.name for item in spec.optional)
        )
    print("compound: a claim made only of parts (each part a claim of its own kind)")
    print("quantifier (the vendor's word on a figure, read one way in every kind; cases: best or every):")
    for word, rule in quantifiers.RULES.items():
        print(f"  {word}: {rule.meaning} (cases: {rule.cases} unless the claim says)")
    return 0
