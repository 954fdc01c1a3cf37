"""github_notifications: list GitHub notifications and mark them read, over the REST API."""

import json
import os
import urllib.parse

from ankit.toolkit import ToolError, http

API = "https://api.github.com"

name = "github_notifications"
description = (
    "List your GitHub notifications (unread by default: repository, type, title, reason, link, thread id) or "
    "mark one thread or all of them as read. Uses the GITHUB_TOKEN environment variable (a classic token with "
    "the notifications scope)."
)
parameters = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": ["list", "mark_read"], "description": "Default list"},
        "thread_id": {"type": "string", "description": "With mark_read: the thread to mark (default: all)"},
        "repo": {"type": "string", "description": "Only this repository, as owner/name"},
        "include_read": {"type": "boolean", "description": "With list: include already-read ones (default false)"},
        "participating": {"type": "boolean", "description": "Only threads you take part in or are mentioned in"},
        "limit": {"type": "integer", "description": "How many to list (default 30, max 50)"},
    },
    "additionalProperties": False,
}
effects = ["read", "network"]
examples = [
    "check my github notifications",
    "do I have any unread GitHub notifications for this repo",
    "mark all my github notifications as read",
]



def _base(ctx) -> str:
    return (ctx.config.get("github_api_url") or API).rstrip("/")


def needs_approval(args: dict, ctx) -> bool:
    """Marking read changes your GitHub state: asked every time; listing sends your token and the request
    off the machine: asked once per API origin and session."""
    return (args.get("action") or "list") == "mark_read" or not http.approved(ctx, _base(ctx))


def preview(args: dict, ctx) -> str:
    """What would be marked read, or where the listing request and the token go."""
    where = f"(with GITHUB_TOKEN, to {http.origin(_base(ctx))})"
    if (args.get("action") or "list") != "mark_read":
        return f"list GitHub notifications {where}\n(approving lets ankit call this API for the rest of the session)"
    if args.get("thread_id"):
        return f"mark GitHub notification thread {args['thread_id']} as read {where}"
    return f"mark all GitHub notifications{' in ' + args['repo'] if args.get('repo') else ''} as read {where}"


def run(args: dict, ctx) -> str:
    """List notifications or mark them read."""
    token = os.environ.get("GITHUB_TOKEN", "").strip()
    if not token:
        raise ToolError("GITHUB_TOKEN is not set; create a classic token with the notifications scope and export it")
    http.approve(ctx, _base(ctx))
    try:
        if (args.get("action") or "list") == "mark_read":
            return _mark_read(args, ctx, token)
        return _list(args, ctx, token)
    except ToolError as exc:
        raise ToolError(str(exc).replace(token, "***")) from None


def _request(ctx, token: str, method: str, path: str, body: dict | None = None):
    base = _base(ctx)
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/vnd.github+json",
        "X-GitHub-Api-Version": "2022-11-28",
    }
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    response = http.fetch(base + path, method=method, headers=headers, data=data, timeout=20, max_redirects=2,
                          allowed=lambda url: http.approved(ctx, url))
    if response.status >= 400:
        raise ToolError(_explain(response, token))
    return response


def _explain(response, token: str) -> str:
    try:
        message = str(json.loads(response.text()).get("message", ""))
    except (ValueError, AttributeError):
        message = response.text()[:200]
    message = " ".join(message.split()).replace(token, "***")
    if response.status == 401:
        return f"GitHub rejected GITHUB_TOKEN (401 {message}); check that the token is valid and not expired"
    if response.status == 403 and response.headers.get("x-ratelimit-remaining") == "0":
        return "GitHub's rate limit is used up (403); try again later"
    if response.status in (403, 404):
        return (f"GitHub refused ({response.status} {message}); the notifications API needs a classic token "
                "with the notifications (or repo) scope")
    return f"GitHub answered {response.status} {message}"


def _list(args: dict, ctx, token: str) -> str:
    limit = max(1, min(50, int(args.get("limit") or 30)))
    query = urllib.parse.urlencode({
        "all": "true" if args.get("include_read") else "false",
        "participating": "true" if args.get("participating") else "false",
        "per_page": limit,
    })
    prefix = f"/repos/{_repo(args)}" if args.get("repo") else ""
    threads = json.loads(_request(ctx, token, "GET", f"{prefix}/notifications?{query}").text() or "[]")
    if not threads:
        return "no unread notifications" if not args.get("include_read") else "no notifications"
    return "\n".join(_line(thread) for thread in threads[:limit])


def _line(thread: dict) -> str:
    subject = thread.get("subject") or {}
    repo = (thread.get("repository") or {}).get("full_name", "?")
    mark = "unread" if thread.get("unread") else "read"
    link = _html_url(subject.get("url") or "") or (thread.get("repository") or {}).get("html_url", "")
    return (f"[{thread.get('id')}] {repo} {subject.get('type', '?')}: {subject.get('title', '')} "
            f"({thread.get('reason', '?')}, {mark}, {thread.get('updated_at', '')[:10]}) {link}").rstrip()


def _html_url(api_url: str) -> str:
    """https://api.github.com/repos/o/r/pulls/5 -> https://github.com/o/r/pull/5."""
    if not api_url.startswith(API + "/repos/"):
        return api_url
    return api_url.replace(API + "/repos/", "https://github.com/").replace("/pulls/", "/pull/")


def _mark_read(args: dict, ctx, token: str) -> str:
    if args.get("thread_id"):
        thread = str(args["thread_id"]).strip().strip("[]")
        if not thread.isdigit():
            raise ToolError(f"thread_id {thread!r} is not a number; use the [id] shown by the list")
        _request(ctx, token, "PATCH", f"/notifications/threads/{thread}")
        return f"marked thread {thread} as read"
    prefix = f"/repos/{_repo(args)}" if args.get("repo") else ""
    _request(ctx, token, "PUT", f"{prefix}/notifications", {"read": True})
    return f"marked all notifications{' in ' + args['repo'] if args.get('repo') else ''} as read"


def _repo(args: dict) -> str:
    repo = args["repo"].strip().strip("/")
    if repo.count("/") != 1:
        raise ToolError(f"repo {repo!r} should look like owner/name")
    return urllib.parse.quote(repo, safe="/")
