"""Safety by construction: the policy engine (policy.py: every "may this call run, and what does an answer cover";
pathrules.py matches Read(...)/Edit(...) rules to the paths a call declares; grants.py says what an [a]lways
covers; shellwords.py reads shell lines for it, sure only of what it models, wrappers.py through wrappers;
programs.py knows what programs do with their words and which are inert; envnames.py which environment names
are inert), the scrubber (scrub.py), the text boundary
(text.py: outside() is the one way another program's words reach the screen or the model; visible.py: controls
made visible, and text fitted to a terminal's width), the edges where ankit meets the outside, once each
(processes.py: spawn() starts every process; web.py: send() makes every HTTP request), the digests of what trust covers
(digests.py: every file of a folder or plugin, and the project files a command names), ankit's private state
files and the OS sandbox. Each class of harm has one mechanism here that every caller goes through.

May import: ankit.paths (ankit's folders), ankit.records, ankit.errors. Never settings (which writes its files
through the state files here), tooling, providers, the turn or terminal.
"""
