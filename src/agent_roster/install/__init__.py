"""Checking and installing what a profile's Install manifest needs (seed 001 "Install
Manifest", issue 15 items 1, 2): package specs parsed and checked against roster.toml's
``[install]`` policy, the target environment inspected, and installs run as argv lists
with a timeout per step."""
