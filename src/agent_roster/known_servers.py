"""Well-known MCP servers and the package each comes in (seed 001 ``KNOWN_MCP_SERVERS``),
for ``list_available_tools``: what a user can add to ``mcp-servers/`` before writing a
profile that names it. Checked against each package's registry page; descriptions are ours."""

from __future__ import annotations

from typing import NamedTuple


class KnownServer(NamedTuple):
    """A server, how it is installed (``npm`` or ``pip`` package, or a ``remote`` URL) and
    the registry entry that runs it."""

    name: str
    description: str
    manager: str
    package: str
    command: str
    args: tuple[str, ...]
    url: str = ""


KNOWN_MCP_SERVERS: tuple[KnownServer, ...] = (
    KnownServer(
        "context7",
        "Current library documentation and code examples",
        "npm",
        "@upstash/context7-mcp",
        "npx",
        ("-y", "@upstash/context7-mcp"),
    ),
    KnownServer(
        "everything",
        "The MCP reference test server (tools, prompts, resources)",
        "npm",
        "@modelcontextprotocol/server-everything",
        "npx",
        ("-y", "@modelcontextprotocol/server-everything"),
    ),
    KnownServer(
        "fetch",
        "Fetch a web page and return it as markdown",
        "pip",
        "mcp-server-fetch",
        "uvx",
        ("mcp-server-fetch",),
    ),
    KnownServer(
        "filesystem",
        "Read, write and search files under the directories it is given",
        "npm",
        "@modelcontextprotocol/server-filesystem",
        "npx",
        ("-y", "@modelcontextprotocol/server-filesystem", "."),
    ),
    KnownServer(
        "git",
        "Read and change a local git repository",
        "pip",
        "mcp-server-git",
        "uvx",
        ("mcp-server-git",),
    ),
    KnownServer(
        "github",
        "GitHub issues, pull requests and code (GitHub's hosted server)",
        "remote",
        "",
        "",
        (),
        "https://api.githubcopilot.com/mcp/",
    ),
    KnownServer(
        "memory",
        "A persistent knowledge graph the agent can write and query",
        "npm",
        "@modelcontextprotocol/server-memory",
        "npx",
        ("-y", "@modelcontextprotocol/server-memory"),
    ),
    KnownServer(
        "playwright",
        "Drive a browser through its accessibility tree",
        "npm",
        "@playwright/mcp",
        "npx",
        ("-y", "@playwright/mcp"),
    ),
    KnownServer(
        "sequential-thinking",
        "Structured step-by-step reasoning",
        "npm",
        "@modelcontextprotocol/server-sequential-thinking",
        "npx",
        ("-y", "@modelcontextprotocol/server-sequential-thinking"),
    ),
    KnownServer(
        "time",
        "The current time and conversions between time zones",
        "pip",
        "mcp-server-time",
        "uvx",
        ("mcp-server-time",),
    ),
)
