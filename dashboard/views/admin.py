"""Users and roles (admins only): add a user, set a role, events and groups, reset a
password, remove a user — the same engine calls as ``domino users``.

The page is listed only for admins, and checks the role in the database again before
showing or changing anything: a signed-in user who is not (or no longer) an admin sees
one sentence and nothing else.
"""

import polars as pl
import streamlit as st

from dashboard import access, data, ui
from dashboard.i18n import language, t
from pipeline import auth, messages
from pipeline.store.db import DatabaseBusy

_DONE = "_admin_done"
_NOT_THERE = "_admin_not_there"  # (events, group rights) of the last save not there yet


def _split(text: str) -> list[str]:
    return [p.strip() for p in (text or "").split(",") if p.strip()]


def render() -> None:
    st.title(t("adm.title"))
    ident = access.current()
    if ident is None:
        access.sign_in_form("signin.why.admin")
        return
    try:
        role, users = data.uncached(
            lambda con: (auth.user_role(con, ident.name), auth.listing(con))
        )
    except DatabaseBusy:
        st.warning(t("busy.nodata"))
        return
    if role != auth.ADMIN:
        st.error(t("adm.only"))
        return
    done = st.session_state.pop(_DONE, None)
    if done:
        st.success(done)
    gone_events, gone_groups = st.session_state.pop(_NOT_THERE, ([], []))
    for e in gone_events:
        st.warning(t("adm.no_event", event=ui.md(e)))
    for league, g in gone_groups:
        if league == auth.DEFAULT_LEAGUE:
            st.warning(t("adm.no_group", group=ui.md(g)))
        else:
            st.warning(t("adm.no_group_league", group=ui.md(g), league=ui.md(league)))
    ui.table(
        users.with_columns(
            pl.col("role").replace({r: t(f"role.{r}") for r in auth.ROLES}),
            pl.col("created_at").dt.strftime("%Y-%m-%d %H:%M"),
        ),
        key="adm_users",
        static=True,
        labels={
            "name": t("adm.name"),
            "role": t("adm.role"),
            "events": t("adm.col.events"),
            "groups": t("adm.col.groups"),
            "league": t("adm.col.league"),
            "created_at": t("adm.col.created"),
        },
    )
    _add_form()
    if users.height:
        _change_form(users)


def _act(fn, said: str, who: str = "", events: list[str] | None = None) -> None:
    """Run a user change on a write connection; a refusal is one sentence. The events
    given and the group rights stored of ``who`` that are not there yet are named after the
    save."""

    def change(con):
        fn(con)
        return auth.not_there(con, events or [], auth.user_rights(con, who) if who else [])

    try:
        gone = data.write(change)
    except messages.Refused as exc:
        st.error(t("adm.bad", message=exc.render(language())))
        return
    except (ValueError, LookupError) as exc:
        st.error(t("adm.bad", message=str(exc.args[0] if exc.args else exc)))
        return
    except DatabaseBusy:
        st.warning(t("up.busy"))
        return
    st.session_state[_DONE] = said
    st.session_state[_NOT_THERE] = gone
    st.rerun()


def _add_form() -> None:
    st.subheader(t("adm.add"))
    with st.form("adm_add", clear_on_submit=False):
        c1, c2 = st.columns(2)
        name = c1.text_input(t("adm.name"), key="adm_name", max_chars=auth.MAX_NAME)
        role = c2.selectbox(
            t("adm.role"), auth.ROLES, key="adm_role", format_func=lambda r: t(f"role.{r}")
        )
        events = st.text_input(t("adm.events"), key="adm_events")
        g1, g2 = st.columns([2, 1])
        groups = g1.text_input(t("adm.groups"), key="adm_groups")
        league = g2.text_input(t("adm.league"), key="adm_league", help=t("adm.league.help"))
        password = st.text_input(t("adm.password"), key="adm_password", type="password")
        submitted = st.form_submit_button(t("adm.save"), type="primary")
    if submitted:
        _act(
            lambda con: auth.add_user(
                con,
                name,
                password,
                _split(events),
                role=role,
                groups=_split(groups),
                league=league or None,
            ),
            t("adm.saved", name=auth.normalize_name(name)),
            name,
            _split(events),
        )


def _change_form(users: pl.DataFrame) -> None:
    st.subheader(t("adm.change"))
    names = users.get_column("name").to_list()
    who = st.selectbox(t("adm.user"), names, key="adm_user")
    row = users.filter(pl.col("name") == who).row(0, named=True)
    with st.form("adm_change"):
        role = st.selectbox(
            t("adm.role"),
            auth.ROLES,
            index=auth.ROLES.index(row["role"]) if row["role"] in auth.ROLES else 0,
            key=f"adm_c_role_{who}",
            format_func=lambda r: t(f"role.{r}"),
        )
        events = st.text_input(t("adm.events"), value=row["events"] or "", key=f"adm_c_ev_{who}")
        g1, g2 = st.columns([2, 1])
        groups = g1.text_input(t("adm.groups"), value=row["groups"] or "", key=f"adm_c_gr_{who}")
        # a user whose rights are in one league keeps it; of several, each group is read
        # from the registry that has it (as the migration to rights by league stored them)
        one = row["league"] if row["league"] and "," not in row["league"] else ""
        league = g2.text_input(
            t("adm.league"), value=one, key=f"adm_c_lg_{who}", help=t("adm.league.help")
        )
        password = st.text_input(t("adm.password"), key=f"adm_c_pw_{who}", type="password")
        c1, c2, c3 = st.columns(3)
        set_role = c1.form_submit_button(t("adm.set_role"), type="primary")
        reset = c2.form_submit_button(t("adm.reset"))
        remove = c3.form_submit_button(t("adm.remove"))
    if set_role:
        _act(
            lambda con: auth.set_role(
                con, who, role, _split(events), _split(groups), league or None
            ),
            t("adm.saved", name=who),
            who,
            _split(events),
        )
    elif reset:
        _act(lambda con: auth.set_password(con, who, password), t("adm.saved", name=who))
    elif remove:
        _act(lambda con: auth.remove_user(con, who), t("adm.removed", name=who))
