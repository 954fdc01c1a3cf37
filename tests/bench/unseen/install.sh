#!/bin/sh
# Installs the unseen evaluation set of real MCP servers (pinned versions) OUTSIDE the repository.
# Usage: sh install.sh [/work/unseen-install]
# Needs node/npm (Node 20 works), python3.11 and python3.13 with venv. Start commands: SOURCES.md (run from the folder).
set -eu
DEST=${1:-/work/unseen-install}
PY311=${PY311:-python3.11}
PY313=${PY313:-python3.13}
"$PY313" -V >/dev/null 2>&1 || PY313=$(ls -d "$HOME"/.pyenv/versions/3.13*/bin/python3 | tail -n 1)
mkdir -p "$DEST/npm" "$DEST/npm-heroku" "$DEST/npm2" "$DEST/run" "$DEST/gmail-dummy"
cd "$DEST/npm"
[ -f package.json ] || echo '{"name":"ankit-unseen","private":true}' > package.json
PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --ignore-scripts \
  @notionhq/notion-mcp-server@2.5.2 \
  @modelcontextprotocol/server-slack@2025.4.25 \
  @modelcontextprotocol/server-google-maps@0.6.2 \
  @modelcontextprotocol/server-puppeteer@2025.5.12 \
  @circleci/mcp-server-circleci@0.20.0 \
  @modelcontextprotocol/server-gitlab@2025.4.25 \
  firecrawl-mcp@3.26.0 \
  tavily-mcp@0.2.22 \
  @wonderwhy-er/desktop-commander@0.2.52 \
  @supabase/mcp-server-supabase@0.13.0 \
  chrome-devtools-mcp@1.11.0 \
  airtable-mcp-server@1.14.0 \
  @elastic/mcp-server-elasticsearch@0.3.1 \
  @tacticlaunch/mcp-linear@1.4.3 \
  @doist/todoist-mcp@11.0.0
# heroku in a folder of its own: it needs its own @modelcontextprotocol/sdk (1.2.x cannot start on Node)
cd "$DEST/npm-heroku"
[ -f package.json ] || echo '{"name":"ankit-unseen-heroku","private":true}' > package.json
npm install --no-audit --no-fund --ignore-scripts @heroku/mcp-server@1.0.7
# round 2
cd "$DEST/npm2"
[ -f package.json ] || echo '{"name":"ankit-unseen-2","private":true}' > package.json
npm install --no-audit --no-fund --ignore-scripts \
  n8n-mcp@2.87.0 @gongrzhe/server-gmail-autoauth-mcp@1.1.11 @launchdarkly/mcp-server@0.6.2
cd "$DEST"
# gmail-mcp will not start without an OAuth keys file and credentials: dummy ones
echo '{"installed":{"client_id":"dummy.apps.googleusercontent.com","client_secret":"dummy","redirect_uris":["http://localhost:3000/oauth2callback"]}}' \
  > gmail-dummy/gcp-oauth.keys.json
echo '{"access_token":"dummy","refresh_token":"dummy","token_type":"Bearer","expiry_date":4102444800000}' \
  > gmail-dummy/credentials.json
venv() { [ -d "venv-$1" ] || "$2" -m venv "venv-$1"; }
venv obsidian "$PY311"; venv-obsidian/bin/pip install -q mcp-obsidian==0.2.3
venv aws-docs "$PY311"; venv-aws-docs/bin/pip install -q awslabs.aws-documentation-mcp-server==1.2.3
venv redis "$PY311"; venv-redis/bin/pip install -q redis-mcp-server==0.5.1
venv atlassian "$PY311"; venv-atlassian/bin/pip install -q mcp-atlassian==0.23.1
venv excel "$PY311"; venv-excel/bin/pip install -q excel-mcp-server==2.2.2
venv opensearch "$PY311"; venv-opensearch/bin/pip install -q opensearch-mcp-server-py==0.12.0
# chroma-mcp pins mcp==1.6.0, which breaks with pydantic>=2.12
venv chroma "$PY311"; venv-chroma/bin/pip install -q chroma-mcp==0.2.6 pydantic==2.11.7
# postgres-mcp needs Python>=3.12 and pins pglast==7.2.0, which is not served: its other requirements by hand
venv postgres "$PY313"
venv-postgres/bin/pip install -q --no-deps postgres-mcp==0.3.0
venv-postgres/bin/pip install -q pglast==7.22 'mcp[cli]==1.30.0' 'attrs>=25.3.0' 'humanize>=4.8.0' \
  'instructor>=1.7.9' 'psycopg-pool>=3.2.6' 'psycopg[binary]>=3.2.6'
venv arxiv "$PY311"; venv-arxiv/bin/pip install -q arxiv-mcp-server==0.8.2
venv zotero "$PY311"; venv-zotero/bin/pip install -q zotero-mcp==0.3.1
venv clickhouse "$PY311"; venv-clickhouse/bin/pip install -q mcp-clickhouse==0.7.0
venv neo4j "$PY311"; venv-neo4j/bin/pip install -q mcp-neo4j-cypher==0.6.0
venv motherduck "$PY311"; venv-motherduck/bin/pip install -q mcp-server-motherduck==1.1.0
venv word "$PY311"; venv-word/bin/pip install -q office-word-mcp-server==1.1.11
# mcp-youtube-transcript imports FastMCP from mcp.server, gone in mcp 2.x
venv youtube-transcript "$PY311"; venv-youtube-transcript/bin/pip install -q mcp-youtube-transcript==0.3.5 mcp==1.30.0
echo "unseen servers installed in $DEST"
