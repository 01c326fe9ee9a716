"""The oracle kit for real-harness acceptance tests (issue 16 item 1).

The harness CLIs are real; only the model is mocked, at the network boundary:

* ``fake_model.FakeModel``: an OpenAI-compatible (and Anthropic) model on a free loopback
  port that answers ``ok`` and records every request, so a test reads what the harness
  loaded from the request it sent (system prompt, tool list);
* ``mcp_stub.py``: a stdio MCP server script with one tool (or the names a test gives), so
  MCP tools reach the model without a network-fetching server;
* ``fixtures``: ``fake_model`` and ``mcp_stub`` fixtures (started per test, stopped after),
  available in every test folder through ``tests/conftest.py``.

Per-harness runners build on these (``copilot.py``: the Copilot CLI pointed at the fake).
"""
