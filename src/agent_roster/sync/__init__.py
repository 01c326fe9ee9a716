"""Keeping the database in step with the vault: one-way sync, the watcher, events."""
