"""A club's members found by what someone typed, with what people are told: the record form,
check-in at the draw, the import's names page, the API and the chat all ask a MemberDirectory.

The rule itself (the name, its variant kanji, a reading, a family or given name) is
league.core.directory's; this is the club's side of it: its members, and the messages when a name
is shared by several of them (AmbiguousMember, a ServiceError) or is nobody's, with the closest
names offered. A form turns AmbiguousMember into its field's error; the API and the chat pass
its message on."""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext_lazy as _

from league.core.directory import Ambiguous, Directory
from league.core.errors import NON_FIELD, ServiceError
from league.models import Member

NO_SUCH_MEMBER = _("No such member")
NO_SUCH_MEMBER_SUGGEST = _("No such member. Did you mean: %(names)s?")
AMBIGUOUS = _("Several members go by this: %(names)s. Enter the full name.")


class AmbiguousMember(ServiceError):
    """Several members answer to what was typed; the message names them."""

    def __init__(self, names: Iterable[str]):
        self.names = list(names)
        self.message = str(AMBIGUOUS) % {"names": "、".join(self.names)}
        super().__init__({NON_FIELD: [self.message]})


class MemberDirectory(Directory[Member]):
    """A club's members (and the names of records merged into them) to find by what was typed."""

    def whole(self, name: str) -> Member | None:
        try:
            return super().whole(name)
        except Ambiguous as e:
            raise AmbiguousMember(e.names) from None

    def find(self, name: str) -> Member | None:
        """The member, or None; AmbiguousMember when several members go by what was typed."""
        try:
            return super().find(name)
        except Ambiguous as e:
            raise AmbiguousMember(e.names) from None

    def unknown_message(self, name: str) -> str:
        """ "No such member", with the closest names when there are any."""
        close = self.suggest(name)
        if not close:
            return str(NO_SUCH_MEMBER)
        return str(NO_SUCH_MEMBER_SUGGEST) % {"names": "、".join(close)}
