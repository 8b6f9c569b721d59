"""The club's chat: a LINE bot (and Discord, Telegram, Slack adapters) over one command core.

`commands` is the core (text in, reply out); `services` its writes (link codes, handled events,
pushes); `line` the LINE SDK; `adapters` Discord, Telegram and Slack; `views` the webhooks and the
club's chat pages; `tasks` the day-close push. Nothing runs while the variables are unset.
"""
