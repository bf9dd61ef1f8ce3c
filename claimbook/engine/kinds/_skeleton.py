"""The flow the kinds that measure cases share, once: a kind subclasses ``Measuring`` and
overrides only the hooks where it differs (papermill's translators are the model).

``check`` selects the claim's subject (a missing one cannot be checked, said once), lets the kind
gather its cases into its findings, and decides: no case to judge cannot be checked; a case left
unmeasured adds ``incomplete-data``; the division rule keeps the cases within one division
(MLCommons does not compare the divisions); the kind's judgment (by default the claim's
quantifier on the judged cases) gives the verdict; ``finish`` adds the caveats the rows imply.
"""

from __future__ import annotations

from dataclasses import replace

from claimbook.claims.registry import Claim
from claimbook.engine import quantifiers
from claimbook.engine.core import ROW_CODES, Check, Data, Outcome, cannot_check, finish, within_divisions
from claimbook.engine.kinds import Findings, multiple_unit, selected_subject
from claimbook.engine.verdict import CANNOT_BE_CHECKED, NOT_SUPPORTED, SUPPORTED


def missing_said(found: Findings) -> str:
    """What the selectors looked for and did not find, to follow a reason (": a; b"), or ""."""
    return f": {'; '.join(found.missing)}" if found.missing else ""


class Measuring:
    """A kind that measures cases and judges them. Its hooks: ``gather`` every kind writes, and
    ``spread`` a kind the division rule applies to; the others have defaults.

    - ``absent``: the reason where the subject selects nothing ("" : the kind selects its own
      results in ``gather``, and refuses there);
    - ``gather(claim, data, subject, found)``: the cases, the results they used, what was missing
      (a Check returned instead: the claim refused on the way);
    - ``judged``: the cases the claim is judged on (those measured);
    - ``unmeasured``: the check where there is none;
    - ``summary``: the finding in a few words, where a range of figures says it badly;
    - ``caveats``: the codes and notes the judged cases imply (``incomplete-data`` where one of
      the cases is unmeasured);
    - ``divisions``: whether the division rule applies here (``spread`` says the cases' figures
      where every one crosses divisions);
    - ``judge``: (verdict, reason, deciding case) from the judged cases, adding to the caveats'
      codes and notes; the claim's quantifier by default;
    - ``context``: what the card says beside the verdict (how the book reads the claim's figures,
      then what the findings' ``context`` holds).
    """

    absent = ""
    findings: type = Findings
    divisions = False
    row_codes = ROW_CODES  # the caveats the rows may imply (``core.finish``)

    def check(self, claim: Claim, data: Data) -> Check:
        subject = None
        if self.absent:
            subject, refused = selected_subject(claim, data, self.absent)
            if refused:
                return refused
        found = self.findings()
        refused = self.gather(claim, data, subject, found)
        return refused if refused is not None else self.decide(claim, data, found)

    def gather(self, claim: Claim, data: Data, subject, found) -> Check | None:
        raise NotImplementedError

    def decide(self, claim: Claim, data: Data, found) -> Check:
        tables = self.tables(claim, found)
        judged = self.judged(claim, found)
        if not judged:
            return self.unmeasured(claim, data, found, tables)
        codes, notes = self.caveats(claim, data, found, judged)
        gathered = Outcome(
            CANNOT_BE_CHECKED,
            "",
            cases=tuple(found.cases),
            rows=self.rows(found),
            codes=codes,
            notes=notes,
            tables=tables,
            summary=self.summary(claim, found, judged),
            missing=tuple(found.missing),
            row_codes=self.row_codes,
        )
        if self.divisions:
            across, judged = within_divisions(claim, judged, self.spread(claim, judged), gathered)
            if across is not None:
                return across
        verdict, reason, deciding = self.judge(claim, found, judged, codes, notes)
        context = tuple(self.context(claim, data, found, judged, verdict))
        return finish(
            claim, replace(gathered, verdict=verdict, reason=reason, deciding=deciding, context=context)
        )

    # -- the hooks' defaults ---------------------------------------------------------------

    def tables(self, claim: Claim, found) -> dict:
        return {}

    def rows(self, found):
        return found.rows()

    def judged(self, claim: Claim, found) -> list:
        return found.measured()

    def unmeasured(self, claim: Claim, data: Data, found, tables: dict) -> Check:
        return cannot_check(claim, "No case is measured" + missing_said(found) + ".", tables=tables)

    def caveats(self, claim: Claim, data: Data, found, judged: list) -> tuple[set, list]:
        codes = set(getattr(found, "codes", ()))
        if len(judged) < len(found.cases):
            codes.add("incomplete-data")
        return codes, list(getattr(found, "notes", ()))

    def summary(self, claim: Claim, found, judged: list) -> str:
        return ""

    def spread(self, claim: Claim, judged: list) -> str:
        raise NotImplementedError

    def better(self, case):
        """Which case is best, for a claim of the best case (the highest figure by default)."""
        return case.measured

    def judge(self, claim: Claim, found, judged: list, codes: set, notes: list) -> tuple[str, str, str]:
        """The claim's quantifier over the judged cases; the reason is the cases' sentences."""
        decision = quantifiers.decide(
            quantifiers.read(claim), [(case, case.detail.judgment) for case in judged], better=self.better
        )
        codes |= decision.codes
        verdict = SUPPORTED if decision.holds else NOT_SUPPORTED
        return verdict, ". ".join(found.sentences) + ".", decision.deciding.label

    def context(self, claim: Claim, data: Data, found, judged: list, verdict: str) -> list:
        return [self.reading(claim), *getattr(found, "context", ())]

    def unit(self, claim: Claim) -> str:
        return claim.unit

    def reading(self, claim: Claim) -> str:
        """How the book reads the claim's figures, in words ("read as at least 2.5x")."""
        return quantifiers.read(claim).sentence(quantifiers.figures_in(claim.claimed), self.unit(claim))


class Comparing(Measuring):
    """A kind that compares two figures (a ratio, a gain): its figure in the claim's unit (a
    multiple by default), its cases judged within one division."""

    divisions = True

    def unit(self, claim: Claim) -> str:
        return multiple_unit(claim)
