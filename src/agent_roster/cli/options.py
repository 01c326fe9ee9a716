"""Click options several adapters share, spelled once."""

from __future__ import annotations

import click

#: ``--json``: print the result in the JSON form every surface gives.
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
#: ``--base-hash``: the version of the file a write is based on.
BASE_HASH = click.option(
    "--base-hash",
    metavar="HASH",
    help="The content_hash the change is based on [default: the file as it is now].",
)
#: ``--no-wait``: return without waiting for the daemon's watcher.
NO_WAIT = click.option(
    "--no-wait", is_flag=True, help="Do not wait for the database to sync the change."
)
#: ``--allow-literal-secret``: write a secret's value into the vault (issue 13 item 4).
ALLOW_LITERAL_SECRET = click.option(
    "--allow-literal-secret",
    is_flag=True,
    help="Write a secret's value into the vault [default: refused; write ${VAR} instead].",
)
