"""The English verbs a request or an operation's name may lead with (:mod:`.actions` reads
them): those that write, those that read, the phrasal ones with their particle, the words
before a verb that ask nothing, and each write verb's canonical change. General English, not
any catalog's words; data only.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["CANON", "IRREGULAR_PAST", "PHRASAL", "POLITE", "READ", "WRITE"]

#: :data:`.actions.Action`, which imports this module
Action = Literal["read", "write"]


def _words(text: str) -> list[str]:
    return text.split()


WRITE = frozenset(
    _words(
        """
    abort accept acknowledge activate add adjust append apply approve archive assign
    associate attach ban block book cancel change charge clear click clone close comment
    commit confirm copy create deactivate decline decrease delete deny deploy deprecate
    deregister destroy detach disable disassociate dismiss drop duplicate edit empty enable
    erase escalate extend fill flush forget fork forward freeze grant halt import increase
    insert install invite join kick kill launch leave like lock make mark merge modify move
    mute notify open order pause pay pin post provision publish purchase purge push put quit
    raise rate reassign reboot rebuild redeploy reduce refresh refund register reject reload
    remove rename renew reopen replace reply reschedule reserve reset resolve restart
    restore resume retry revert revoke rollback save schedule send set share silence snooze
    stage star start stop store submit subscribe suspend switch tag terminate toggle
    transfer trigger turn type unarchive unblock unfreeze uninstall unlike unlock unmute
    unpin unregister unshare unstar unsubscribe unwatch update upload upsert void vote watch
    write
    """
    )
)
READ = frozenset(
    _words(
        """
    browse check compare count describe detail details display download export fetch find get
    head inspect list lookup query read retrieve return returns scan search see show status
    summarize tell view what which who where when how
    """
    )
)
#: Words before a clause's verb that ask nothing themselves ("please", "can you", "also").
POLITE = frozenset(
    _words(
        """
    please pls kindly can could would will you u i we me us let lets let's go ahead and just
    want wanna need to like d 'd id i'd i'm im help also then now quickly quick now real
    hey hi ok okay so first next after that additionally finally only simply
    """
    )
)
PHRASAL: dict[tuple[str, str], tuple[Action, str | None]] = {
    ("kick", "off"): ("write", "start"), ("start", "up"): ("write", "start"),
    ("boot", "up"): ("write", "start"), ("power", "on"): ("write", "start"),
    ("shut", "down"): ("write", "stop"), ("power", "off"): ("write", "stop"),
    ("spin", "up"): ("write", "create"), ("set", "up"): ("write", "create"),
    ("sign", "up"): ("write", "create"),
    ("tear", "down"): ("write", "delete"), ("take", "down"): ("write", "delete"),
    ("clean", "up"): ("write", "delete"), ("wipe", "out"): ("write", "delete"),
    ("turn", "on"): ("write", "enable"), ("switch", "on"): ("write", "enable"),
    ("turn", "off"): ("write", "disable"), ("switch", "off"): ("write", "disable"),
    ("scale", "up"): ("write", "update"), ("scale", "down"): ("write", "update"),
    ("scale", "out"): ("write", "update"), ("fire", "off"): ("write", "send"),
    ("look", "up"): ("read", None), ("pull", "up"): ("read", None),
    ("bring", "up"): ("read", None),
}  # fmt: skip


#: Past forms of write verbs that do not end in -ed (not those that are their own present:
#: put, set, shut).
IRREGULAR_PAST = frozenset(("built", "left", "made", "ran", "sent", "took", "wrote"))


#: The change a write verb names, as one canonical verb per group of synonyms; every other
#: write verb of :data:`_WRITE` is its own group. General English, not any catalog's words.
_SYNONYMS = {
    "create": "add build generate insert make new put register",
    "delete": "deregister destroy drop erase purge remove trash unregister",
    "update": "adjust change decrease edit extend increase modify patch raise reduce refresh "
    "rename renew set switch",
    "send": "email forward message notify text",
    "copy": "clone duplicate",
    "move": "relocate transfer",
    "upload": "attach",
    "cancel": "abort",
    "start": "begin execute launch run",
    "stop": "halt kill quit terminate",
    "restart": "reboot",
    "enable": "activate",
    "disable": "deactivate",
    "approve": "accept",
    "reject": "decline deny",
    "save": "store write",
    "acknowledge": "ack",
    "mute": "silence snooze",
    "revert": "rollback",
}
CANON = {w: w for w in WRITE} | {
    synonym: verb for verb, words in _SYNONYMS.items() for synonym in words.split()
}
