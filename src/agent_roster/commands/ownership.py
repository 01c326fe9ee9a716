"""One render against the render ledger: record what it produced, find what went stale,
and (``--prune``) delete the stale files that are still exactly what roster wrote.

A file is *stale* for a render when the ledger says this render's owner (vault, harness,
scope) wrote it and the render no longer produces it:

* an agent file, when its profile is gone from the vault, or rendered without this file;
  a profile that exists but failed to render keeps its files (a broken save must not
  delete the agent it came from), and a render of named profiles judges only theirs;
* a shared (merged) file, only in a render of the whole vault without errors.

A stale file is deleted (``--prune``) only when nobody else still writes it, roster wrote
all of it (``exclusive``), and it still hashes to what roster wrote; otherwise it is kept
and reported, and ``--prune`` stops tracking it (it is the user's now).
"""

from __future__ import annotations

import datetime
import os
from collections.abc import Collection, Sequence

import msgspec

from agent_roster import __version__
from agent_roster.commands.ledger import Entry, Ledger, Owner, Writer, load_ledger, save_ledger
from agent_roster.commands.output_folder import (
    KEPT,
    LEGACY_PREFIX,
    REMOVED,
    STALE,
    FileResult,
    OutputFolder,
)
from agent_roster.commands.output_folder import Record as Produced
from agent_roster.errors import VaultError

_EDITED = "edited since roster wrote it"
_NOT_OURS = "it holds content roster did not write (roster merged its entries into it)"
_NOT_FILE = "it is no longer a regular file roster wrote"


class Ownership:
    """The ledger of one output root during one render."""

    def __init__(
        self,
        folder: OutputFolder,
        vault: str | os.PathLike[str],
        scope: str,
        *,
        project: str | None,
        prune: bool,
        write: bool,
    ) -> None:
        self.folder = folder
        self.ledger: Ledger = load_ledger(folder.root)
        self.vault = os.path.relpath(os.path.realpath(vault), folder.real_root)
        self.scope = scope
        self.project = project
        self.prune = prune
        self.write = write
        self.when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.changed = False
        self._upgrade()

    def _upgrade(self) -> None:
        """A format 1 ledger's sha256 digests made this format's wherever the file still
        holds what roster wrote (each such file is read once, by the first render after
        the upgrade), as the render compares this format's. A file that no longer matches
        keeps its old digest, which compares as edited, as it is."""
        for rel, entry in self.ledger.files.items():
            if not entry.digest.startswith(LEGACY_PREFIX):
                continue
            try:
                now = self.folder.upgraded_digest(rel, entry.digest)
            except VaultError:  # it resolves outside the folder now: never roster's to read
                continue
            if now:
                self.ledger.files[rel] = msgspec.structs.replace(entry, digest=now)
                self.changed = True

    def settle(
        self,
        harness: str,
        produced: Sequence[Produced],
        *,
        present: Collection[str],
        named: Collection[str],
        failed: bool,
    ) -> tuple[list[FileResult], dict[str, str]]:
        """Record ``harness``'s ``produced`` files and judge its stale ones. ``present``:
        every profile id in the vault; ``named``: the ids the render was limited to (empty:
        the whole vault); ``failed``: the harness reported an error. Returns the stale
        files' report rows and notes for produced files taken over from another owner
        (shown path -> note)."""
        owner = Owner(self.vault, harness, self.scope)
        notes: dict[str, str] = {}
        made: set[str] = set()
        rendered: set[str] = set()
        for record in produced:
            made.add(record.path)
            rendered.add(record.profile)
            taken = self._record(owner, record)
            if taken:
                notes[self.folder.shown(record.path)] = taken
        results: list[FileResult] = []
        for rel, entry in list(self.ledger.files.items()):
            mine = [w for w in entry.writers if _owned_by(w, owner)]
            if rel in made or not mine or not self._stale(mine[0], present, named, rendered):
                continue
            if failed and not mine[0].profile:
                continue
            result = self._settle_stale(harness, rel, entry, owner)
            if result is not None:
                results.append(result)
        return results, notes

    def save(self) -> None:
        if self.write and self.changed:
            save_ledger(self.folder.root, self.ledger)

    # -- recording --------------------------------------------------------------------

    def _record(self, owner: Owner, record: Produced) -> str:
        prev = self.ledger.files.get(record.path)
        if record.merged:
            # Merged content is roster's alone only while roster created the file and
            # nobody wrote to it between renders.
            exclusive = record.before == "" or (
                prev is not None and prev.exclusive and prev.digest == record.before
            )
        else:
            exclusive = True
        mine = None
        if prev is not None:
            mine = next((w for w in prev.writers if _owned_by(w, owner)), None)
            if (
                mine is not None
                and (prev.digest, prev.merged, prev.exclusive)
                == (record.digest, record.merged, exclusive)
                and (mine.profile, mine.project) == (record.profile, self.project)
                and (record.merged or len(prev.writers) == 1)
            ):
                return ""  # the common case: unchanged, and already recorded as this render's
        writer = Writer(
            vault=owner.vault,
            harness=owner.harness,
            scope=owner.scope,
            profile=record.profile,
            project=self.project,
            rendered_at=self.when,
            roster=__version__,
        )
        if (
            mine is not None
            and prev is not None
            and prev.digest == record.digest
            and (mine.profile, mine.project) == (record.profile, self.project)
        ):
            writer = mine  # the content did not change: keep the render that wrote it
        writers: list[Writer] = []
        taken = ""
        for other in prev.writers if prev is not None else ():
            if other is mine:
                writers.append(writer)  # in its place: the ledger does not churn
            elif record.merged:
                writers.append(other)
            else:
                # An agent file has one writer: this render replaced the other's content.
                taken = f"taken over from the {other.harness} render of vault {other.vault}"
        if mine is None:
            writers.append(writer)
        self.ledger.files[record.path] = Entry(
            digest=record.digest, merged=record.merged, exclusive=exclusive, writers=tuple(writers)
        )
        self.changed = True
        return taken

    # -- stale files ------------------------------------------------------------------

    @staticmethod
    def _stale(
        writer: Writer, present: Collection[str], named: Collection[str], rendered: set[str]
    ) -> bool:
        if not writer.profile:  # a shared file: only a whole render decides
            return not named
        if named and writer.profile not in named:
            return False
        return writer.profile not in present or writer.profile in rendered

    def _settle_stale(
        self, harness: str, rel: str, entry: Entry, owner: Owner
    ) -> FileResult | None:
        others = tuple(w for w in entry.writers if not _owned_by(w, owner))
        if others:  # another render still writes it: only this owner's claim goes
            self._put(rel, msgspec.structs.replace(entry, writers=others))
            return None
        current = self.folder.current_digest(rel, entry.digest)
        if current is None:  # already gone: nothing left to own
            self._put(rel, None)
            return None
        shown = self.folder.shown(rel)
        why = "" if current == entry.digest else _NOT_FILE if current == "" else _EDITED
        if not why and not entry.exclusive:
            why = _NOT_OURS
        if not self.prune:
            note = f"{why}; --prune leaves it" if why else "--prune removes it"
            return FileResult(harness, shown, STALE, note=note)
        if why:
            self._put(rel, None)  # the user's file now: roster stops tracking it
            return FileResult(harness, shown, KEPT, note=why + "; roster stops tracking it")
        if self.write and not self.folder.remove(rel, entry.digest):
            # Changed in the moment between the check and the delete: keep it after all.
            self._put(rel, None)
            return FileResult(harness, shown, KEPT, note=_EDITED + "; roster stops tracking it")
        self._put(rel, None)
        return FileResult(harness, shown, REMOVED)

    def _put(self, rel: str, entry: Entry | None) -> None:
        if entry is None:
            self.ledger.files.pop(rel, None)
        else:
            self.ledger.files[rel] = entry
        self.changed = True


def _owned_by(writer: Writer, owner: Owner) -> bool:
    return (writer.vault, writer.harness, writer.scope) == owner
