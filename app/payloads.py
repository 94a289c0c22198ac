"""What each socket and each API client is sent: the board's public view, a seat's private
view, and the small notice of a seal. Built from ``rules.view`` and ``rules.prompt`` alone: no
raw state ever leaves the server (a secret never leaves its owner)."""

from __future__ import annotations

from app.clock import Clock
from app.live import LiveMatch, LiveRoom, SealedOrder, SeatInfo, timer_marks
from engine.core import JSON, Event, events_for
from engine.registry import get_rules


class Payloads:
    """The views of a room; ``step_seconds`` is the pace of the board's show (its clock
    says which step the board draws now)."""

    def __init__(self, step_seconds: float, clock: Clock) -> None:
        self.step_seconds = step_seconds
        self.clock = clock

    def show_json(self, match: LiveMatch | None) -> JSON | None:
        """Where the show stands: the step the board draws now (the server keeps the clock)."""
        if match is None or not match.showing or not match.steps:
            return None
        step = min(
            len(match.steps) - 1, int(match.show_elapsed_now(self.clock.now()) // self.step_seconds)
        )
        show: JSON = {
            "round": match.steps[0].round,
            "step": max(0, step),
            "steps": len(match.steps),
            "step_ms": round(self.step_seconds * 1000),
        }
        if match.history and match.history[-1].timed_out:
            show["timed_out"] = list(match.history[-1].timed_out)
        return show

    def seal_notice(
        self, live: LiveRoom, position: int, before: object = None, prompt_of: int | None = None
    ) -> JSON:
        """What the rest of the room hears when a seat seals and nothing else moves: who
        sealed, its commitment, the room's new version and seats to act, and ``patch``, the
        changes to bring a view up to date (RFC 6902 JSON Patch: the room's fields and the
        game's marks of a sealed seat). Everything else of their views stays as it was.

        Given ``before``, the match's state before the seal, it is the sealer's own notice:
        its patch also sets ``my_commitment`` and its next ``prompt``, and brings its own
        view on from ``before`` (its sheet may show what it sealed).

        Given ``prompt_of``, a room seat whose decision the seal narrowed (its options: a colour
        taken), its patch also sets that seat's new ``prompt``."""
        match = live.match
        assert match is not None
        mine = [o for o in match.pending_orders() if o.position == position]
        commitment = mine[-1].commitment if mine else None
        to_act = live.to_act()
        patch: list[JSON] = [
            {"op": "replace", "path": "/version", "value": match.version},
            {"op": "replace", "path": "/to_act", "value": to_act},
            {"op": "add", "path": f"/commitments/{position}", "value": commitment},
        ]
        engine_seat = match.engine_seat(position)
        rules = live.rules
        if engine_seat is not None and before is not None:
            patch += [
                {"op": "replace", "path": "/my_commitment", "value": commitment},
                {"op": "replace", "path": "/time_ran_out", "value": None},
                {"op": "replace", "path": "/timer_order", "value": None},
                {"op": "replace", "path": "/sealed_by", "value": _sealed_by(mine)},
                {
                    "op": "replace",
                    "path": "/prompt",
                    "value": rules.prompt(match.state, engine_seat),
                },
                *json_diff(
                    rules.view(before, engine_seat), rules.view(match.state, engine_seat), "/view"
                ),
            ]
        elif engine_seat is not None:
            for path, value in rules.seal_marks(match.state, engine_seat):
                patch.append({"op": "replace", "path": pointer("view", *path), "value": value})
            narrowed = None if prompt_of is None else match.engine_seat(prompt_of)
            if narrowed is not None:
                prompt = rules.prompt(match.state, narrowed)
                patch.append({"op": "replace", "path": "/prompt", "value": prompt})
        return {
            "type": "sealed",
            "seat": position,
            "commitment": commitment,
            "match": match.number,
            "version": match.version,
            "to_act": to_act,
            "patch": patch,
        }

    def step_frame(
        self,
        live: LiveRoom,
        viewer: int | None,
        board: bool,
        since: int,
        memo: DiffMemo | None = None,
        show: JSON | None = None,
    ) -> JSON | None:
        """What moves a view of the show on from step ``since`` to the step on the board now, for a
        client that holds the former: ``patch`` (RFC 6902) sets ``show``, adds the steps' events (to
        a seat's ``events``, as entries of the board's ``playback``) and changes ``view`` from the
        position after step ``since`` to the one after the step now. Between two steps nothing else
        of a view moves, so a phone gets a few hundred bytes a step instead of its whole view.

        ``viewer`` is the engine seat (``None``: the board, or a seat that sits the match
        out); ``None`` is returned when the show does not stand past ``since``. ``memo``
        shares the comparing of the views' common parts between the viewers of a step;
        ``show``, the caller's reading of :meth:`show_json` (else it is read now)."""
        match = live.match
        show = show or self.show_json(match)
        if match is None or show is None or not 0 <= since < show["step"]:
            return None
        reached = match.steps[since + 1 : show["step"] + 1]
        patch: list[JSON] = [{"op": "replace", "path": "/show", "value": show}]
        for step in reached:
            events = events_for(step.events, viewer)
            if board:
                shown = {"round": step.round, "events": events}
                patch.append({"op": "add", "path": "/playback/-", "value": shown})
            else:
                patch += [{"op": "add", "path": "/events/-", "value": event} for event in events]
        patch += json_diff(
            self.step_view(live, since, viewer),
            self.step_view(live, show["step"], viewer),
            "/view",
            memo,
        )
        return {
            "type": "step",
            "match": match.number,
            "version": match.version,
            "step": show["step"],
            "patch": patch,
        }

    @staticmethod
    def step_view(live: LiveRoom, step: int, viewer: int | None) -> JSON:
        """The view after ``step`` of the show on the board, as the engine seat ``viewer``
        (``None``: the board) sees it; built once per show (``LiveMatch.step_views``)."""
        match = live.match
        assert match is not None
        key = (step, viewer)
        view = match.step_views.get(key)
        if view is None:
            view = match.step_views[key] = live.rules.view(match.steps[step].state, viewer)
        return view

    def board_payload(self, live: LiveRoom, host: bool = False, room: JSON | None = None) -> JSON:
        """The board's view of the room: public information only (and, for the host's
        board, the seats' PINs, so that a player without a phone can be helped back).

        ``playback`` is the newest resolution step by step, with each step's public events:
        the board's only copy of them (a seat's view has them as one list, ``events``).
        While ``show`` runs it holds the steps up to ``show.step`` and ``view`` is the public
        position right after that step: a frame holds nothing the board has not reached
        (the reveal never shows anything before its step). Otherwise ``view`` is the newest
        position.

        ``room`` is :meth:`room_payload` of the room as it stands, when the caller has it."""
        payload = self.room_payload(live) if room is None else dict(room)
        if host:
            payload["pins"] = {str(s.position): s.pin for s in live.seats if s.pin}
            payload["host_pin"] = live.host_pin
        match = live.match
        if match is None:
            payload.update(view=None, playback=[], history=[])
            return payload
        show = payload["show"]
        shown = match.steps[: show["step"] + 1] if show is not None else match.steps
        payload["view"] = (
            live.rules.view(match.state, None)
            if show is None
            else self.step_view(live, show["step"], None)
        )
        payload["playback"] = [
            {"round": step.round, "events": events_for(step.events, None)} for step in shown
        ]
        payload["history"] = self._history(match, None, show)
        return payload

    def seat_payload(
        self, live: LiveRoom, seat: SeatInfo, room: JSON | None = None, *, handed: bool = False
    ) -> JSON:
        """One seat's private view of the room, with what it must decide now.

        While the board plays a resolution out, the seat sees its own view as of the step
        on the board, its own events up to that step, and no decision yet. ``room`` as for
        :meth:`board_payload`.

        ``handed``: the view of the phone that held the seat until the host handed it to a
        bot (``LiveRoom.phone_seat``). It watches the match as a seat that sits it out
        does, and gets nothing of the seat's own: no view, decision, sealed order, timer or
        PIN of it."""
        payload = self.room_payload(live) if room is None else dict(room)
        match = live.match
        engine_seat = None if match is None or handed else match.engine_seat(seat.position)
        payload["you"] = {
            "seat": seat.position,
            "name": seat.name,
            "lang": seat.lang,
            "player": engine_seat,
            "pin": "" if handed else seat.pin,
            "time_factor": seat.time_factor,
            "handed": handed,
        }
        if match is None:
            payload.update(
                view=None,
                prompt=None,
                events=[],
                history=[],
                my_commitment=None,
                time_ran_out=None,
                timer_order=None,
                sealed_by=None,
                prediction=None,
            )
            return payload
        show = payload["show"]
        # A seat that sits this match out watches it like the board.
        payload["view"] = (
            live.rules.view(match.state, engine_seat)
            if show is None
            else self.step_view(live, show["step"], engine_seat)
        )
        payload["prompt"] = (
            None
            if engine_seat is None or show is not None
            else live.rules.prompt(match.state, engine_seat)
        )
        payload["events"] = events_for(self._shown_events(match, show), engine_seat)
        payload["history"] = self._history(match, engine_seat, show)
        mine = [] if handed else [o for o in match.pending_orders() if o.position == seat.position]
        payload["my_commitment"] = mine[-1].commitment if mine else None
        # The timer's default, until the seat seals again: its own order, told to it alone.
        ran_out = None if mine or handed else match.ran_out.get(seat.position)
        payload["time_ran_out"] = None if ran_out is None else ran_out.round
        payload["timer_order"] = None if ran_out is None else ran_out.order
        payload["sealed_by"] = _sealed_by(mine)
        payload["prediction"] = None if handed else self._prediction_offer(live, seat)
        if engine_seat is not None:  # its own countdown: the host may give it more time
            deadline = match.deadline_for(seat.time_factor)
            left = match.time_left_for(seat.time_factor)
            payload["deadline"] = None if deadline is None else deadline.isoformat()
            payload["timer_left"] = None if left is None else max(0.0, left)
        return payload

    @staticmethod
    def _prediction_offer(live: LiveRoom, seat: SeatInfo) -> JSON | None:
        """What this seat may predict now, with its own current guess."""
        target = live.prediction_target(seat)
        if target is None:
            return None
        number, game, players = target
        guess = live.predictions.get(number, {}).get(seat.position)
        return {
            "match": number,
            "game": game,
            "players": players,
            "endings": list(get_rules(game).info.endings),
            "winner": None if guess is None else guess[0],
            "ending": None if guess is None else guess[1],
        }

    @staticmethod
    def _shown_events(match: LiveMatch, show: JSON | None) -> list[Event]:
        """The newest resolution's events, up to the step on the board while it plays."""
        if show is None:
            return match.recent_events
        return [event for step in match.steps[: show["step"] + 1] for event in step.events]

    @staticmethod
    def _history(match: LiveMatch, engine_seat: int | None, show: JSON | None) -> list[JSON]:
        """The match's log round by round, as ``engine_seat`` (None: the board) may read it;
        the resolution the board is still playing out is not history yet."""
        records = match.history[:-1] if show is not None else match.history
        kept = match.logs.get(engine_seat)
        if kept is not None and kept[0] == len(records):
            return kept[1]
        # The records only ever grow within a match: a log that covers fewer of them is
        # carried on from where it stops. A log once handed out is never changed in place
        # (a socket compares the one it holds with the next), so its last round is copied.
        covered, rounds = kept if kept is not None and kept[0] < len(records) else (0, [])
        rounds = list(rounds)
        for record in records[covered:]:
            # Each resolution's events after the marks of the seats whose time ran out in
            # it: the log tells the default move where it was played, not elsewhere.
            events = [*timer_marks(record.timed_out), *events_for(record.events, engine_seat)]
            if rounds and rounds[-1]["round"] == record.round:
                rounds[-1] = {"round": record.round, "events": [*rounds[-1]["events"], *events]}
            else:
                rounds.append({"round": record.round, "events": events})
        match.logs[engine_seat] = (len(records), rounds)
        return rounds

    def _proofs(self, live: LiveRoom, match: LiveMatch | None) -> tuple[JSON, JSON]:
        """Commitments of the orders sealed and not yet played, and the reveals of the
        newest resolution's orders that hide nothing any more (all of them once the match
        is over and shown)."""
        if match is None:
            return {}, {}
        commitments = {str(o.position): o.commitment for o in match.pending_orders()}
        over = match.status == "finished" and not match.showing
        reveals = {
            str(o.position): o.reveal()
            for o in match.last_resolution_orders()
            if over or live.rules.order_is_public(o.order)
        }
        return commitments, reveals

    def room_payload(self, live: LiveRoom) -> JSON:
        """What every view of the room holds alike: the room, its seats, the match's
        progress and proofs, the show's step. The views of one change share it (each view
        sets its own keys on a shallow copy, never inside a shared value)."""
        match = live.match
        info = live.rules.info
        least, most = live.seat_limits()
        names = {s.position: s for s in live.seats}
        show = self.show_json(match)
        commitments, reveals = self._proofs(live, match)
        # The end is not announced before the board has played the last round out.
        ended = match is not None and match.status == "finished" and show is None
        return {
            "code": live.code,
            "game": live.game,
            "game_name": info.name,
            "min_players": least,
            "max_players": most,
            "players": None
            if match is None
            else [names[p].public() for p in match.players if p in names],
            "tournament": live.tournament_json(),
            "status": "playing" if live.status == "finished" and not ended else live.status,
            "seats": [s.public() for s in live.seats],
            "match": None if match is None else match.number,
            "version": None if match is None else match.version,
            "to_act": live.to_act(),
            "outcome": match.outcome if ended and match is not None else None,
            # A bot is ready for the next game as soon as a game ends.
            "ready": []
            if match is None
            else sorted(
                set(match.ready_seats)
                | ({s.position for s in live.seats if s.is_bot} if ended else set())
            ),
            "options": dict(live.options),
            "paused": live.paused,
            # The board's clock: the next deadline of a seat still deciding, none once only
            # seats without a limit decide (a phone gets its own below).
            "deadline": None
            if (deadline := live.next_deadline()) is None
            else deadline.isoformat(),
            "timer_left": None if (left := live.next_time_left()) is None else max(0.0, left),
            "show": show,
            "predictions": live.predictions_json(),
            "fast_forward": match is not None and match.fast_forward,
            "commitments": commitments,
            "reveals": reveals,
        }


def _sealed_by(mine: list[SealedOrder]) -> str | None:
    """Who sealed the seat's order not yet played, if not its player: "bot" (the seat was
    handed to one) or "timer" (its time ran out, H5.4)."""
    if not mine:
        return None
    return "bot" if mine[-1].by_bot else "timer" if mine[-1].by_timer else None


def pointer(*parts: object) -> str:
    """An RFC 6901 JSON Pointer to ``parts`` (``~`` and ``/`` in a part escaped)."""
    return "".join(map(_pointer_part, parts))


def _pointer_part(part: object) -> str:
    text = str(part)
    if "~" in text or "/" in text:
        text = text.replace("~", "~0").replace("/", "~1")
    return "/" + text


class DiffMemo:
    """Patches already worked out, by the identity of the two values compared and their
    path. The views of one step share most of their parts (a game's public board is the
    same objects in every viewer's view), so each such part is compared once for all the
    sockets told of the step, not once per socket. Each entry holds its two values: an
    identity stays theirs while the memo lives."""

    def __init__(self) -> None:
        self._patches: dict[tuple[int, int, str], tuple[object, object, tuple[JSON, ...]]] = {}

    def get(self, old: object, new: object, path: str) -> list[JSON] | None:
        hit = self._patches.get((id(old), id(new), path))
        if hit is None or hit[0] is not old or hit[1] is not new:
            return None
        return list(hit[2])

    def put(self, old: object, new: object, path: str, patch: list[JSON]) -> None:
        self._patches[id(old), id(new), path] = (old, new, tuple(patch))


_ABSENT = object()


def json_diff(old: object, new: object, path: str = "", memo: DiffMemo | None = None) -> list[JSON]:
    """RFC 6902 operations that turn ``old`` into ``new`` (JSON values), replacing whole
    what is not an object on both sides or a list of one length on both sides; ``memo``
    shares the work between the diffs of views made of the same parts.

    Written here rather than taken from ``jsonpatch.make_patch``: a step changes a few
    values of a view in place, and a diff that never looks for moved items is what keeps
    it cheap enough to run for every socket at every step."""
    # Identity first: ``==`` walks a dict or list compared with itself to its end.
    if old is new or old == new:
        return []
    ops: list[JSON]
    if isinstance(old, dict) and isinstance(new, dict):
        if memo is not None and (known := memo.get(old, new, path)) is not None:
            return known
        ops = [{"op": "remove", "path": path + _pointer_part(key)} for key in old if key not in new]
        for key, value in new.items():
            was = old.get(key, _ABSENT)
            if was is _ABSENT:
                ops.append({"op": "add", "path": path + _pointer_part(key), "value": value})
            elif was is not value and was != value:
                ops += json_diff(was, value, path + _pointer_part(key), memo)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        if memo is not None and (known := memo.get(old, new, path)) is not None:
            return known
        ops = [
            op
            for index, (was, now) in enumerate(zip(old, new, strict=True))
            if was is not now and was != now
            for op in json_diff(was, now, f"{path}/{index}", memo)
        ]
    else:
        return [{"op": "replace", "path": path, "value": new}]
    if memo is not None:
        memo.put(old, new, path, ops)
    return ops
