"""Named subagents: their definitions read from Markdown files in Claude Code's format.

May import: skills (the frontmatter reader), tooling, settings' paths, records, errors. The sub-session that runs
one (the task tool) belongs to the turn.
"""
