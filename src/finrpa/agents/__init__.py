"""Agents: the planner turns goals and templates into plans, the executor runs subtasks, the coordinator
drives a run."""
