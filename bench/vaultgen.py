"""Generate a realistic, reproducible vault for benchmarks and load tests.

The vault follows seed 000/001's layout:

* ``agent-types/<id>/profile.md`` — N system profiles, each with frontmatter (id, name,
  description, tags, sometimes ``extends``), an H1, ``## Role``, ``## Config``, ``## Tools``,
  ``## MCP Servers``, ``## Rules``, ``## Reflection``, ``## Install`` and now and then an extra
  prose section or a paragraph of prose around a JSON block (both are legal and kept);
* ``mcp-servers/<name>.md`` — M registry entries, a mix of stdio and http (a few sse);
* ``projects/<pid>/agent-types/<id>/profile.md`` — P projects with 1-3 partial overrides of
  existing system profiles each (a Config with one or two keys, maybe Rules, maybe MCP
  Servers), and sometimes a project-scope MCP server.

Everything comes from one ``random.Random(seed)``, so the same arguments always give the same
bytes. Profiles are about 1.5-2.5 KB, like hand-written ones. The vault is meant to validate
with no errors and no warnings (``--check`` proves it through
``agent_roster.vault.loader.load_vault``), so a benchmark measures the clean path that real
vaults take, and any diagnostic points at a regression rather than at the generator.

The module is importable (``generate``, ``check``, ``edit_profile``, ``render_profile``) for
later benchmarks (sync, watch latency, resolution at 1k/10k/100k profiles) and has a CLI::

    python bench/vaultgen.py OUT_DIR --profiles 10000 --servers 200 --projects 100 --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import shapes

# --- vocabulary -----------------------------------------------------------------------------

DOMAINS = (
    "python",
    "typescript",
    "rust",
    "go",
    "java",
    "kotlin",
    "swift",
    "react",
    "django",
    "postgres",
    "infra",
    "terraform",
    "k8s",
    "docs",
    "security",
    "data",
    "ml",
    "frontend",
    "backend",
    "mobile",
    "release",
    "api",
    "search",
    "billing",
    "auth",
    "observability",
)
ROLES = (
    "coding",
    "code-review",
    "qa",
    "web-developer",
    "supervisor",
    "refactorer",
    "migrator",
    "triager",
    "doc-writer",
    "debugger",
    "planner",
    "perf-tuner",
    "auditor",
    "tester",
)
ROLE_LINES = (
    "You write, modify and debug code within a project workspace.",
    "You follow the project's conventions, write tests, and commit clean, working code.",
    "You review changes for correctness, readability and missing tests before approval.",
    "You reproduce reported bugs with a failing test first, then fix the cause.",
    "You keep changes small and explain the reasoning behind each one.",
    "You read the surrounding code before editing and match its style exactly.",
    "You triage incoming tasks, label them and route them to the right agent type.",
    "You measure before optimising and report numbers with every change.",
    "You write documentation that a newcomer can follow on a fresh machine.",
    "You plan multi-step work as a checklist and keep it current as you go.",
    "You prefer boring, well-understood solutions over clever ones.",
    "You ask for clarification when a requirement is ambiguous instead of guessing.",
)
RULES = (
    "Always run existing tests before committing",
    "Never commit secrets, .env files, or credentials",
    "Prefer small, focused commits over large ones",
    "If tests fail after your changes, fix them before moving on",
    "Check for and respect any project-specific overrides",
    "Keep public interfaces backwards compatible unless the task says otherwise",
    "Add a regression test for every bug you fix",
    "Do not reformat files you did not otherwise change",
    "Write commit messages in the imperative mood, under 72 characters",
    "Leave TODO comments only with an issue reference",
    "Run the linter and type checker before asking for review",
    "Never force-push to a shared branch",
    "Update the changelog when behaviour visible to users changes",
    "Prefer the standard library over a new dependency",
    "Delete dead code instead of commenting it out",
)
REFLECTIONS = (
    "Did I encounter any surprising behavior worth remembering?",
    "Did I resolve an error that might recur? If so, save the pattern.",
    "Is there a convention in this project I should note for next time?",
    "Which step took longest, and could a tool have done it faster?",
    "Did the tests cover the change, or did I rely on manual checks?",
    "Was any instruction in this profile wrong or out of date?",
)
EXTRA_SECTIONS = (
    (
        "Output Format",
        "Reply with a short summary, then a bulleted list of changed files.\n"
        "Link every claim about behaviour to a test or a command you ran.",
    ),
    (
        "Escalation",
        "Stop and ask a human when a change touches billing, auth or data\n"
        "migrations, or when two attempts at a fix have failed.",
    ),
    (
        "Workflow",
        "1. Read the task and the files it names.\n2. Write a failing test.\n"
        "3. Make it pass.\n4. Run the full suite and the linters.\n5. Commit.",
    ),
)
CONFIG_NOTES = (
    "The model and budget were tuned on last quarter's tasks; raise the budget only with\n"
    "evidence from the task log.",
    "This profile runs with a bounded tool surface; see the Tools section for the list.",
)
MODELS = (
    "claude-sonnet-4-6",
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "claude-haiku-4-5",
    "claude-opus-4-6",
)
PERMISSION_MODES = ("default", "plan", "acceptEdits", "bypassPermissions", "auto", "full")
ACP_AGENTS = ("claude", "codex", "gemini", "opencode", "cursor")
BUILTIN_TOOLS = (
    "Read",
    "Grep",
    "Glob",
    "Edit",
    "Write",
    "MultiEdit",
    "Bash",
    "LS",
    "WebFetch",
    "WebSearch",
    "TodoWrite",
    "NotebookEdit",
    "Task",
    "Agent",
)
EMBEDDED_TOOLS = (
    "create_task",
    "get_task",
    "edit_task",
    "list_profiles",
    "get_profile",
    "list_mcp_servers",
    "validate_vault",
    "show_effective_profile",
    "edit_project",
)
DENIABLE = ("Bash", "WebFetch", "WebSearch", "Write", "NotebookEdit", "Agent", "Task")
# (base name, stdio package or None for http, tool names)
SERVER_KINDS: tuple[tuple[str, str | None, tuple[str, ...]], ...] = (
    (
        "github",
        "@modelcontextprotocol/server-github",
        ("create_issue", "get_issue", "list_pull_requests", "create_pull_request", "search_code"),
    ),
    ("playwright", "@playwright/mcp", ("browser_navigate", "browser_click", "browser_snapshot")),
    ("postgres", "@modelcontextprotocol/server-postgres", ("query", "list_tables")),
    (
        "filesystem",
        "@modelcontextprotocol/server-filesystem",
        ("read_file", "write_file", "list_directory"),
    ),
    ("memory", "@modelcontextprotocol/server-memory", ("create_entities", "search_nodes")),
    ("sentry", None, ("list_issues", "get_issue_details", "resolve_issue")),
    ("linear", None, ("list_issues", "create_issue", "update_issue")),
    ("slack", None, ("post_message", "list_channels", "read_thread")),
    ("jira", None, ("search", "create_ticket", "transition_ticket")),
    ("docs", None, ("search_docs", "fetch_page")),
)
NPM_PACKAGES = (
    "typescript",
    "eslint@9",
    "prettier",
    "@playwright/test",
    "vitest",
    "pnpm",
    "tsx",
    "@biomejs/biome",
)
PIP_PACKAGES = (
    "ruff",
    "pytest>=8",
    "mypy==1.13.0",
    "black",
    "hypothesis",
    "coverage[toml]>=7",
    "pre-commit",
)
COMMANDS = ("git", "node", "uv", "make", "docker", "gh", "jq", "rg")
PROJECT_WORDS = (
    "acme",
    "orbit",
    "lumen",
    "harbor",
    "atlas",
    "nimbus",
    "quartz",
    "ember",
    "delta",
    "sierra",
    "cobalt",
    "juniper",
)
PROJECT_KINDS = ("web", "api", "cli", "mobile", "infra", "data", "docs", "sdk")


class VaultGenError(ValueError):
    """The arguments cannot produce a vault (non-empty target, no profiles)."""


# --- results --------------------------------------------------------------------------------


@dataclass
class VaultManifest:
    """What ``generate`` wrote, so benchmarks need not rescan the vault to know it.

    ``profiles`` lists system profile ids in generation order; ``servers`` maps each system
    server name to its tools; ``overrides`` maps each project id to the ids it overrides;
    ``project_servers`` maps a project id to its own server names; ``extends`` maps a child
    profile id to its parent. ``bytes_written`` and ``seconds`` describe the run."""

    root: Path
    seed: int
    profiles: list[str] = field(default_factory=list)
    servers: dict[str, tuple[str, ...]] = field(default_factory=dict)
    overrides: dict[str, list[str]] = field(default_factory=dict)
    project_servers: dict[str, list[str]] = field(default_factory=dict)
    extends: dict[str, str] = field(default_factory=dict)
    bytes_written: int = 0
    profile_bytes: int = 0
    seconds: float = 0.0

    @property
    def profile_files(self) -> int:
        """System profiles plus project overrides: every ``profile.md`` in the vault."""
        return len(self.profiles) + sum(len(v) for v in self.overrides.values())

    @property
    def server_files(self) -> int:
        return len(self.servers) + sum(len(v) for v in self.project_servers.values())

    def profile_path(self, profile_id: str, project: str | None = None) -> Path:
        """Where ``generate`` put a profile (system scope unless ``project`` is given)."""
        base = self.root if project is None else self.root / "projects" / project
        return base / "agent-types" / profile_id / "profile.md"


# --- rendering ------------------------------------------------------------------------------


def _json_list(items: list[str]) -> str:
    return "[" + ", ".join(json.dumps(x) for x in items) + "]" if items else "[]"


def _title(profile_id: str) -> str:
    words = [w for w in profile_id.split("-") if not w.isdigit()]
    return (
        " ".join(w.upper() if w in ("qa", "ml", "api", "k8s") else w.capitalize() for w in words)
        + " Agent"
    )


def _fence_tag(rng: random.Random) -> str:
    """Mostly ``json``; now and then ``JSON`` (legal: the tag is matched in any case)."""
    return "JSON" if rng.random() < 0.03 else "json"


def render_server(
    rng: random.Random, name: str, kind: int, project: str | None = None, shape: str = "clean"
) -> str:
    """One ``mcp-servers/<name>.md``: stdio servers get command/args/env, the others a URL.

    ``kind`` indexes :data:`SERVER_KINDS`; the ``many-servers`` shape gives every server
    several env entries or headers."""
    base, package, tools = SERVER_KINDS[kind]
    desc = f"{base.capitalize()} tools ({', '.join(tools[:2])}, ...)"
    lines = ["---", f"name: {name}"]
    if package is not None:
        env_key = f"{base.upper()}_TOKEN"
        lines += [
            "transport: stdio",
            "command: npx",
            f'args: ["-y", "{package}"]',
            "env:",
            f'  {env_key}: "${{{env_key}}}"',
        ]
        if rng.random() < 0.4:
            lines.append('  LOG_LEVEL: "warn"')
        if shape == "many-servers":
            lines += shapes.server_env(rng, base)
    else:
        transport = "sse" if rng.random() < 0.15 else "http"
        host = f"{base}.{'internal' if project else 'example'}.com"
        lines += [
            f"transport: {transport}",
            f"url: https://{host}/mcp/{name}",
            "headers:",
            f'  Authorization: "Bearer ${{{base.upper()}_TOKEN}}"',
        ]
        if shape == "many-servers":
            lines += shapes.server_headers(rng, base)
    lines += [f'description: "{desc}"', f"tags: [mcp, {base}]", "---", ""]
    lines += [f"# {name}", ""]
    lines.append(f"Provides {', '.join(tools)}.")
    if project:
        lines.append(f"Scoped to project {project}; shadows any system entry of the same name.")
    if rng.random() < 0.5:
        lines.append("Token is read from the environment of the daemon; rotate it quarterly.")
    lines.append("")
    return "\n".join(lines)


def render_profile(
    rng: random.Random,
    profile_id: str,
    servers: dict[str, tuple[str, ...]],
    *,
    extends: str | None = None,
    shape: str = "clean",
) -> str:
    """One complete system ``profile.md`` using every section of seed 000.

    ``servers`` maps the visible server names to their tools; the profile attaches 0-3 of
    them and allows some of their tools as ``mcp__<server>__<tool>``. ``shape`` (see
    ``shapes.py``) adds unknown tools (``warnings``) or 20-80 KB of Role prose
    (``big-prompts``); ``clean`` draws exactly what it always drew."""
    name = _title(profile_id)
    domain = profile_id.split("-", 1)[0]
    tags = ["profile", "agent-type", domain]
    if rng.random() < 0.5:
        tags.append(rng.choice(ROLES))
    out: list[str] = [
        "---",
        f"id: {profile_id}",
        f"name: {name}",
        f'description: "{rng.choice(ROLE_LINES)[4:-1]} for {domain} work"',
        f"tags: [{', '.join(tags)}]",
    ]
    if extends is not None:
        out.append(f"extends: {extends}")
    out += ["---", "", f"# {name}", "", "## Role"]
    out.append(f"You are the {domain} {name.split()[-2].lower()} agent for this team.")
    out += rng.sample(ROLE_LINES, rng.randint(3, 5))
    if shape == "big-prompts":
        out += shapes.prose(rng)
    out.append("")

    # Config
    runtime = rng.choices(("claude_sdk", "acpx", "supervisor"), (75, 12, 13))[0]
    config: dict[str, object] = {
        "model": rng.choice(MODELS),
        "permission_mode": rng.choice(PERMISSION_MODES),
        "max_tokens_per_task": rng.choice((50_000, 100_000, 150_000, 200_000, 400_000)),
        "runtime": runtime,
    }
    if runtime == "acpx":
        config["agent_name"] = rng.choice(ACP_AGENTS)
    if rng.random() < 0.2:
        config["max_turns"] = rng.choice((20, 40, 80))
    out += ["## Config", f"```{_fence_tag(rng)}", json.dumps(config, indent=2), "```"]
    if rng.random() < 0.15:
        out += ["", rng.choice(CONFIG_NOTES)]
    out.append("")

    # MCP servers first (the tools refer to them)
    names = list(servers)
    attached = rng.sample(names, min(len(names), rng.choice((0, 1, 1, 2, 2, 3))))
    allowed = rng.sample(BUILTIN_TOOLS, rng.randint(3, 7))
    allowed += rng.sample(EMBEDDED_TOOLS, rng.randint(0, 3))
    for server in attached:
        tools = servers[server]
        if rng.random() < 0.15:
            allowed.append(f"mcp__{server}__*")
        else:
            allowed += [f"mcp__{server}__{t}" for t in rng.sample(tools, rng.randint(1, 2))]
    if shape == "warnings":
        allowed += shapes.unknown_tools(rng)
    deniable = [t for t in DENIABLE if t not in allowed]
    denied = rng.sample(deniable, min(len(deniable), rng.randint(0, 2)))
    out += [
        "## Tools",
        f"```{_fence_tag(rng)}",
        "{",
        f'  "allowed": {_json_list(allowed)},',
        f'  "denied": {_json_list(denied)}',
        "}",
        "```",
        "",
        "## MCP Servers",
        f"```{_fence_tag(rng)}",
        _json_list(attached),
        "```",
        "",
        "## Rules",
    ]
    out += [f"- {rule}" for rule in rng.sample(RULES, rng.randint(5, 8))]
    out += ["", "## Reflection", "After completing a task, consider:"]
    out += [f"- {q}" for q in rng.sample(REFLECTIONS, rng.randint(2, 4))]
    out.append("")
    if rng.random() < 0.2:
        heading, body = rng.choice(EXTRA_SECTIONS)
        out += [f"## {heading}", body, ""]

    install = {
        "npm": rng.sample(NPM_PACKAGES, rng.randint(0, 2)),
        "pip": rng.sample(PIP_PACKAGES, rng.randint(0, 3)),
        "commands": rng.sample(COMMANDS, rng.randint(1, 3)),
    }
    out += ["## Install", f"```{_fence_tag(rng)}", json.dumps(install, indent=2), "```", ""]
    return "\n".join(out)


def render_override(
    rng: random.Random,
    profile_id: str,
    project: str,
    project_servers: list[str],
) -> str:
    """A partial project override: frontmatter id (equal to the folder id), a Config with
    one or two keys, maybe Rules, maybe an MCP Servers list naming the project's servers."""
    out = ["---", f"id: {profile_id}"]
    if rng.random() < 0.3:
        out.append(f"name: {_title(profile_id)} ({project})")
    out += ["---", "", f"# {profile_id} for {project}", ""]
    choices: dict[str, object] = {
        "model": rng.choice(MODELS),
        "permission_mode": rng.choice(PERMISSION_MODES),
        "max_tokens_per_task": rng.choice((30_000, 80_000, 250_000)),
    }
    keys = rng.sample(sorted(choices), rng.randint(1, 2))
    config = {k: choices[k] for k in keys}
    out += ["## Config", "```json", json.dumps(config, indent=2), "```", ""]
    if project_servers and rng.random() < 0.5:
        out += ["## MCP Servers", "```json", _json_list(project_servers[:1]), "```", ""]
    if rng.random() < 0.6:
        out.append("## Rules")
        out += [f"- {rule}" for rule in rng.sample(RULES, rng.randint(2, 4))]
        out.append(f"- Follow {project}'s CONTRIBUTING.md before anything else")
        out.append("")
    return "\n".join(out)


# --- writing --------------------------------------------------------------------------------


def _write(path: Path, text: str) -> int:
    data = text.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data)
    return len(data)


def _profile_ids(rng: random.Random, count: int) -> list[str]:
    width = max(4, len(str(count - 1)))
    return [f"{rng.choice(DOMAINS)}-{rng.choice(ROLES)}-{i:0{width}d}" for i in range(count)]


def generate(
    out_dir: str | os.PathLike[str],
    *,
    profiles: int = 10_000,
    servers: int = 200,
    projects: int = 100,
    seed: int = 1,
    extends_ratio: float = 0.05,
    shape: str = "clean",
) -> VaultManifest:
    """Write a vault into ``out_dir`` (created if needed; it must be empty) and describe it.

    ``extends_ratio`` is the share of system profiles that ``extends`` an earlier profile
    (chains at most three deep, never cycles); 0 gives a vault without inheritance.
    ``shape`` is one of ``shapes.SHAPES``; ``many-servers`` writes
    ``shapes.MANY_SERVERS`` servers whatever ``servers`` says."""
    if shape not in shapes.SHAPES:
        raise VaultGenError(f"unknown shape {shape!r}; one of {', '.join(shapes.SHAPES)}")
    if shape == "many-servers":
        servers = shapes.MANY_SERVERS
    started = time.perf_counter()
    root = Path(out_dir)
    if root.exists() and any(root.iterdir()):
        raise VaultGenError(f"{root} is not empty; the generator only writes into a fresh folder")
    root.mkdir(parents=True, exist_ok=True)
    if profiles < 1:
        raise VaultGenError("at least one profile is needed")
    rng = random.Random(seed)
    manifest = VaultManifest(root=root, seed=seed)

    # MCP registry
    width = max(3, len(str(servers - 1)))
    for i in range(servers):
        kind = i % len(SERVER_KINDS)
        name = f"{SERVER_KINDS[kind][0]}-{i:0{width}d}"
        manifest.servers[name] = SERVER_KINDS[kind][2]
        manifest.bytes_written += _write(
            root / "mcp-servers" / f"{name}.md", render_server(rng, name, kind, shape=shape)
        )

    # System profiles
    depth: dict[str, int] = {}
    ids = _profile_ids(rng, profiles)
    for index, profile_id in enumerate(ids):
        parent = None
        if index > 0 and rng.random() < extends_ratio:
            candidate = ids[rng.randrange(index)]
            if depth.get(candidate, 0) < 2:
                parent = candidate
                depth[profile_id] = depth.get(candidate, 0) + 1
                manifest.extends[profile_id] = parent
        text = render_profile(rng, profile_id, manifest.servers, extends=parent, shape=shape)
        size = _write(manifest.profile_path(profile_id), text)
        manifest.bytes_written += size
        manifest.profile_bytes += size
        manifest.profiles.append(profile_id)

    # Projects
    width = max(3, len(str(projects - 1)))
    system_names = list(manifest.servers)
    for p in range(projects):
        pid = f"{rng.choice(PROJECT_WORDS)}-{rng.choice(PROJECT_KINDS)}-{p:0{width}d}"
        own: list[str] = []
        if rng.random() < 0.3:
            kind = rng.randrange(len(SERVER_KINDS))
            # Half shadow a system entry by name (project scope wins), half are new names.
            if system_names and rng.random() < 0.5:
                name = rng.choice(system_names)
                kind = system_names.index(name) % len(SERVER_KINDS)
            else:
                name = f"{SERVER_KINDS[kind][0]}-{pid}"
            own.append(name)
            manifest.bytes_written += _write(
                root / "projects" / pid / "mcp-servers" / f"{name}.md",
                render_server(rng, name, kind, project=pid, shape=shape),
            )
            manifest.project_servers[pid] = own
        chosen = rng.sample(ids, min(len(ids), rng.randint(1, 3)))
        manifest.overrides[pid] = chosen
        for profile_id in chosen:
            text = render_override(rng, profile_id, pid, own)
            size = _write(manifest.profile_path(profile_id, pid), text)
            manifest.bytes_written += size
            manifest.profile_bytes += size
    manifest.seconds = time.perf_counter() - started
    return manifest


_MAX_TOKENS = re.compile(r'("max_tokens_per_task": )(\d+)')


def edit_profile(path: str | os.PathLike[str], generation: int) -> int:
    """Make a small, valid edit to a generated profile, as a person would: set Config's
    ``max_tokens_per_task`` to a value derived from ``generation`` (a system profile always
    has the key; an override gets it added). Returns the new value, which lets a sync or
    watch benchmark check that the edit arrived. Writes in place (not atomically), the way
    many editors save."""
    target = Path(path)
    text = target.read_text(encoding="utf-8")
    value = 10_000 + generation
    new, count = _MAX_TOKENS.subn(lambda m: f"{m.group(1)}{value}", text, count=1)
    if count == 0:
        new = text.replace("```json\n{\n", f'```json\n{{\n  "max_tokens_per_task": {value},\n', 1)
        if new == text:
            raise ValueError(f"{target} has no Config block this helper understands")
    target.write_text(new, encoding="utf-8")
    return value


def check(root: str | os.PathLike[str]) -> list[str]:
    """Validate the vault with the real loader; every diagnostic, formatted (empty = clean)."""
    from agent_roster.vault.loader import load_vault

    snapshot = load_vault(root)
    return [d.format() for d in snapshot.all_diagnostics()]


def main(argv: list[str] | None = None) -> int:
    """CLI: generate a vault, print a summary, optionally validate it (``--check``)."""
    parser = argparse.ArgumentParser(
        description="Write a reproducible benchmark vault (profiles, MCP servers, projects)."
    )
    parser.add_argument("out_dir", metavar="OUT_DIR", help="folder to create (must be empty)")
    parser.add_argument("--profiles", type=int, default=10_000, help="system profiles")
    parser.add_argument("--servers", type=int, default=200, help="system MCP server files")
    parser.add_argument("--projects", type=int, default=100, help="projects with overrides")
    parser.add_argument("--seed", type=int, default=1, help="random seed (same seed, same bytes)")
    parser.add_argument(
        "--extends-ratio",
        type=float,
        default=0.05,
        help="share of system profiles that extend an earlier one (default 0.05)",
    )
    parser.add_argument(
        "--shape", choices=shapes.SHAPES, default="clean", help="what the vault looks like"
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="validate with agent_roster's load_vault; exit 1 on any error, or on any "
        "warning in a shape other than 'warnings'",
    )
    args = parser.parse_args(argv)
    try:
        manifest = generate(
            args.out_dir,
            profiles=args.profiles,
            servers=args.servers,
            projects=args.projects,
            seed=args.seed,
            extends_ratio=args.extends_ratio,
            shape=args.shape,
        )
    except VaultGenError as exc:
        print(f"vaultgen: {exc}", file=sys.stderr)
        return 2
    files = manifest.profile_files
    print(
        f"wrote {manifest.root}: {len(manifest.profiles)} system profiles, "
        f"{files - len(manifest.profiles)} project overrides in {len(manifest.overrides)} "
        f"projects, {manifest.server_files} MCP server files; "
        f"{manifest.bytes_written / 1e6:.1f} MB, mean profile "
        f"{manifest.profile_bytes / files:.0f} B, {manifest.seconds:.2f} s"
    )
    if args.check:
        problems = check(manifest.root)
        if args.shape == "warnings":
            warned = [line for line in problems if "warning[tool-unknown]" in line]
            print(f"check: {len(warned)} tool-unknown warnings, as the shape intends")
            problems = [line for line in problems if line not in set(warned)]
        for line in problems[:50]:
            print(line)
        if problems:
            print(f"check: FAILED, {len(problems)} diagnostics", file=sys.stderr)
            return 1
        print("check: clean (0 errors, 0 warnings)")
    return 0


def generate_from_args(root: Path, args: argparse.Namespace, shape: str = "clean") -> VaultManifest:
    """Generate a vault of the sizes :func:`add_vault_arguments` took, in ``shape``, saying
    how long it took on stderr."""
    manifest = generate(
        root,
        profiles=args.profiles,
        servers=args.servers,
        projects=args.projects,
        seed=args.seed,
        shape=shape,
    )
    print(f"generated the {shape} vault in {manifest.seconds:.1f} s", file=sys.stderr)
    return manifest


def prepare_vault(args: argparse.Namespace, root: Path) -> str:
    """``root`` reused when it holds anything, else generated into; says which."""
    if root.exists() and any(root.iterdir()):
        return "reused --vault"
    generate_from_args(root, args)
    return "generated" if args.vault is None else "generated into --vault"


def bench_parser(doc: str | None, *, vault_help: str = "") -> argparse.ArgumentParser:
    """A benchmark's argument parser: described by the first paragraph of ``doc``, with
    the vault options every benchmark shares."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0] if doc else None)
    add_vault_arguments(parser, vault_help=vault_help)
    return parser


def add_vault_arguments(parser: argparse.ArgumentParser, *, vault_help: str = "") -> None:
    """The options every benchmark shares: which vault, or how to generate one."""
    parser.add_argument(
        "--vault",
        metavar="DIR",
        help=vault_help
        or "benchmark this vault; if DIR is missing or empty, generate into it and keep it "
        "(default: a temporary generated vault)",
    )
    parser.add_argument("--profiles", type=int, default=10_000)
    parser.add_argument("--servers", type=int, default=200)
    parser.add_argument("--projects", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)


def add_shape_argument(parser: argparse.ArgumentParser) -> None:
    """``--shape``: which vault shapes a benchmark runs (repeatable; all by default)."""
    parser.add_argument(
        "--shape",
        dest="shapes",
        action="append",
        choices=shapes.SHAPES,
        help="a vault shape to measure (repeat for several; default: every shape, "
        + ", ".join(shapes.SHAPES)
        + "); with --vault, the shape that vault has",
    )


def chosen_shapes(args: argparse.Namespace) -> tuple[str, ...]:
    """The shapes ``--shape`` named, in the order of ``shapes.SHAPES``; all by default."""
    named = set(args.shapes or shapes.SHAPES)
    return tuple(shape for shape in shapes.SHAPES if shape in named)


if __name__ == "__main__":
    sys.exit(main())
