"""What a registry must not publish: the placeholders ``new-announcement`` writes, and a
``claimant`` or ``vendor`` that is no organization of the results or no accelerator vendor.

Each problem is a warning on every build (a ``--strict`` build stops on it, before anything is
written). The placeholders are defined here, and the scaffold writes these very values, so the
two cannot drift apart.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from claimbook.inputs.names import closest, squash

PLACEHOLDER_URL = "https://example.org/the-announcement"
PLACEHOLDER_LABEL = "where the announcement can be read"
PLACEHOLDER_TITLE = "An example claim no data can settle (replace it)"
PLACEHOLDER_STATEMENT = "The announcement says something no MLPerf result measures."
PLACEHOLDER_REASON = "Say here why no published result can check it."
# Hosts reserved for examples (RFC 2606): never an announcement's address.
EXAMPLE_HOSTS = ("example.org", "example.com", "example.net")
PREFIX = "warning: "


def _is_example(url) -> bool:
    host = (urlsplit(str(url)).hostname or "").lower()
    return any(host == name or host.endswith("." + name) for name in EXAMPLE_HOSTS)


def placeholder_warnings(registry) -> list[str]:
    """One warning per placeholder left in a registry, naming its file, announcement or claim,
    and the field."""
    found = []
    for announcement in registry.announcements.values():
        where = f"{announcement.path}: announcement {announcement.id}"
        if announcement.source_url and _is_example(announcement.source_url):
            found.append(
                f"{where}: field source_url is a placeholder ({announcement.source_url}); give the announcement's address"
            )
        if announcement.source_label.strip() == PLACEHOLDER_LABEL:
            found.append(
                f"{where}: field source_label is new-announcement's placeholder; say where the announcement is read"
            )
    placeholders = {
        "title": PLACEHOLDER_TITLE,
        "statement": PLACEHOLDER_STATEMENT,
        "reason": PLACEHOLDER_REASON,
    }
    for claim in registry.all_claims():
        for name, text in placeholders.items():
            value = claim.statement if name == "statement" else claim.get(name)
            if isinstance(value, str) and " ".join(value.split()) == text:
                found.append(
                    f"{claim.where.split(':', 1)[0]}: claim {claim.id}: field {name} is new-announcement's "
                    "placeholder; replace the example claim with the announcement's own"
                )
    return [PREFIX + text for text in found]


def party_warnings(registry, organizations, vendors) -> list[str]:
    """A ``claimant`` that is no organization of the results, or a ``vendor`` that is no
    accelerator vendor, named with the closest names (compared as selectors compare names)."""
    known_organizations = {squash(name) for name in organizations}
    known_vendors = {squash(name) for name in vendors}
    found = []
    for announcement in registry.announcements.values():
        where = f"{announcement.path}: announcement {announcement.id}"
        if squash(announcement.claimant) not in known_organizations:
            near = closest(announcement.claimant, organizations)
            hint = f"; close: {', '.join(near)}" if near else ""
            found.append(
                f"{where}: field claimant {announcement.claimant[:80]!r} is no organization of the results{hint}"
            )
        if squash(announcement.vendor) not in known_vendors:
            hint = ", ".join(sorted(set(vendors)))
            found.append(
                f"{where}: field vendor {announcement.vendor[:80]!r} is no accelerator vendor (the vendors: {hint})"
            )
    return [PREFIX + text for text in found]


def strict_refusal(warnings) -> str | None:
    """Under ``--strict``, the one-line error a registry with these warnings gives (None if none)."""
    if not warnings:
        return None
    first = warnings[0].removeprefix(PREFIX)
    more = f" (and {len(warnings) - 1} more, listed above)" if len(warnings) > 1 else ""
    return f"--strict: {first}{more}; nothing was written"
