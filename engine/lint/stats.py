"""What `knap lint --stats` counts per pack: documents by kind, cards, DSL texts, provenance marks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

PROVENANCE = ("placeholder", "assumption", "reference")


@dataclass
class PackStats:
    pack: str
    documents: Counter = field(default_factory=Counter)
    cards: int = 0
    card_copies: int = 0
    effects: int = 0
    provenance: Counter = field(default_factory=Counter)

    def to_json(self) -> dict:
        return {
            "pack": self.pack,
            "documents": dict(sorted(self.documents.items())),
            "cards": self.cards,
            "card_copies": self.card_copies,
            "dsl_texts": self.effects,
            "provenance": {k: self.provenance.get(k, 0) for k in PROVENANCE},
        }

    @classmethod
    def from_json(cls, data: dict) -> PackStats:
        return cls(
            data["pack"],
            Counter(data["documents"]),
            data["cards"],
            data["card_copies"],
            data["dsl_texts"],
            Counter(data["provenance"]),
        )
