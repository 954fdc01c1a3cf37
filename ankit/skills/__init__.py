"""Agent Skills: finding SKILL.md folders, reading their frontmatter (a small YAML subset), the capped skill
body, the skills list for the system prompt, and the skill tool.

May import: ankit.tooling (the Tool record), ankit.errors. Never providers, discovery or terminal.
"""
