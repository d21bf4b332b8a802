"""advisor's probe inside the user's training process (docs/script-mode.md).

The controller (advisor) drives it over a private socket; the probe measures steps, brackets the
modules of the level under examination with advisor's marker ops, records windows with advisor's
native probe library, and sends plain timeline records back. Analysis never runs here.
"""
