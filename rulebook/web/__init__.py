"""The table in the browser: `rulebook serve` (docs/web.md).

`present` turns one seat's view into what its page draws, `tables` keeps the games, their seats'
links and their saves, `app` serves pages and live updates over Starlette and websockets.
"""
