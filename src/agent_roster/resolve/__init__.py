"""Resolution: which profile a task gets, merged and turned into a launch spec (issue 4)."""
