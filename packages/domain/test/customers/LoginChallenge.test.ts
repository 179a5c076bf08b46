/** The one-time-code login rules of one phone number at one partner. */
import { assert, describe, it } from "@effect/vitest"
import { DateTime } from "effect"
import fc from "fast-check"
import * as LoginChallenge from "../../src/customers/LoginChallenge.ts"
import { fold } from "../../src/kernel/Decider.ts"
import type { PartnerId, RegistrationId } from "../../src/kernel/Ids.ts"
import { DeciderSpecification, PropertyParams } from "../../src/testing/index.ts"

/** This file's fixed property seed (`FC_SEED` overrides it to explore). */
const seeded = PropertyParams.propertyParams(2026112614)

const spec = DeciderSpecification.forAggregate(LoginChallenge.aggregate)

const partnerId = "0b9f1c52-5f0e-4d7e-9a51-2f3c1d4e5a6b" as PartnerId
const otherPartnerId = "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f" as PartnerId
const phoneNumber = "+14155550123"
const registrationId = "7e57ab1e-0000-4000-8000-00000000c0de" as RegistrationId
const otherRegistrationId = "7e57ab1e-0000-4000-8000-00000000beef" as RegistrationId
const t0 = DateTime.makeUnsafe("2026-03-01T10:00:00.000Z")
const later = (minutes: number, seconds = 0) => DateTime.add(t0, { minutes, seconds })
const challenge = { partnerId, phoneNumber }

const issue = (at = t0, codeHash = "hash-1"): LoginChallenge.IssueCode => ({
  _tag: "IssueCode",
  ...challenge,
  codeHash,
  at,
})
const verify = (codeHash: string, at = later(1), candidate = registrationId): LoginChallenge.VerifyCode => ({
  _tag: "VerifyCode",
  ...challenge,
  codeHash,
  registrationId: candidate,
  at,
})
const issued = (at = t0, codeHash = "hash-1") =>
  LoginChallenge.LoginCodeIssued.make({ ...challenge, codeHash, expiresAt: DateTime.add(at, { minutes: 5 }), at })
const verified = (at = later(1), id = registrationId) =>
  LoginChallenge.LoginCodeVerified.make({ ...challenge, registrationId: id, at })
const rejected = (failedAttempts: number, at = later(1)) =>
  LoginChallenge.LoginCodeRejected.make({ ...challenge, failedAttempts, at })
const fourWrong = [rejected(1), rejected(2), rejected(3), rejected(4)]
const locked = (at = later(1)) =>
  LoginChallenge.LoginLocked.make({ ...challenge, lockedUntil: DateTime.add(at, { minutes: 15 }), at })

describe("a phone number that never got a code", () => {
  it("issuing a code records it with its hash, valid 5 minutes", () => {
    spec.given([]).when(issue()).then([issued()])
  })
  it("a malformed phone number or an empty hash is refused, naming both fields", () => {
    const error = spec
      .given([])
      .when({ ...issue(), phoneNumber: "4155550123", codeHash: "" })
      .thenFails({ _tag: "ValidationFailed" })
    assert.deepStrictEqual(
      (error as { issues: ReadonlyArray<{ field: string }> }).issues.map((i) => i.field),
      ["phoneNumber", "codeHash"],
    )
  })
  it("verifying a code is refused: no code is pending", () => {
    spec.given([]).when(verify("hash-1")).thenFails({
      _tag: "RuleViolated",
      code: "OTP_NOT_ISSUED",
      reason: "no code is pending for this phone number; request a new one",
    })
  })
  it("the refusals name the field and say what is expected", () => {
    spec
      .given([])
      .when({ ...issue(), phoneNumber: "4155550123" })
      .thenFails({
        _tag: "ValidationFailed",
        issues: [{ field: "phoneNumber", message: "must be an E.164 phone number such as +14155550123" }],
      })
    spec
      .given([])
      .when({ ...issue(), codeHash: "" })
      .thenFails({ _tag: "ValidationFailed", issues: [{ field: "codeHash", message: "must not be empty" }] })
  })
  it("it may send 5 wrong codes, may be sent a code now, and its first lock would last 15 minutes", () => {
    assert.strictEqual(LoginChallenge.wrongCodesLeft(LoginChallenge.initialState, t0), 5)
    assert.isUndefined(LoginChallenge.retryAfterSeconds(LoginChallenge.initialState, t0))
    assert.strictEqual(LoginChallenge.nextLockMinutes(LoginChallenge.initialState, t0), 15)
  })
})

describe("a phone number awaiting its code", () => {
  it("the right code logs in with the new registration id on the first login", () => {
    spec.given([issued()]).when(verify("hash-1")).then([verified()])
  })
  it("a later login keeps the registration id fixed by the first one", () => {
    spec
      .given([issued(), verified(), issued(later(10), "hash-2")])
      .when(verify("hash-2", later(11), otherRegistrationId))
      .then([verified(later(11), registrationId)])
  })
  it("a wrong code is recorded and counted", () => {
    spec
      .given([issued()])
      .when(verify("wrong"))
      .then([rejected(1)])
  })
  it("the fifth wrong code in a row locks the phone for 15 minutes", () => {
    spec
      .given([issued(), ...fourWrong])
      .when(verify("wrong"))
      .then([rejected(5), locked()])
  })
  it("wrong codes keep counting across a new code (a resend does not reset the count)", () => {
    spec
      .given([issued(), ...fourWrong, issued(later(2), "hash-2")])
      .when(verify("wrong", later(3)))
      .then([rejected(5, later(3)), locked(later(3))])
  })
  it("a code is refused once it expired (5 minutes), and nothing is recorded", () => {
    spec
      .given([issued()])
      .when(verify("hash-1", later(5)))
      .thenFails({ _tag: "RuleViolated", code: "OTP_EXPIRED", reason: "the code has expired; request a new one" })
  })
  it("a code is still accepted one second before it expires", () => {
    spec
      .given([issued()])
      .when(verify("hash-1", later(4, 59)))
      .then([verified(later(4, 59))])
  })
  it("a new code replaces the previous one", () => {
    spec
      .given([issued(), issued(later(1), "hash-2")])
      .when(verify("hash-1", later(2)))
      .then([rejected(1, later(2))])
  })
  it("a command for another partner's challenge is refused", () => {
    spec
      .given([issued()])
      .when({ ...verify("hash-1"), partnerId: otherPartnerId })
      .thenFails({
        _tag: "IllegalTransition",
        entity: "LoginChallenge",
        reason: "this challenge belongs to another phone number or partner",
      })
  })
  it("a command for another phone number's challenge is refused", () => {
    spec
      .given([issued()])
      .when({ ...verify("hash-1"), phoneNumber: "+14155550124" })
      .thenFails({ _tag: "IllegalTransition", entity: "LoginChallenge" })
  })
  it("once the phone number is erased (it reads [erased]), the challenge is still that phone's", () => {
    const erasedIssued = { ...issued(), phoneNumber: "[erased]" } as LoginChallenge.LoginChallengeEvent
    spec.given([erasedIssued]).when(verify("hash-1")).then([verified()])
  })
})

describe("a phone number that just logged in", () => {
  it("the same code cannot be used twice", () => {
    spec
      .given([issued(), verified()])
      .when(verify("hash-1", later(2)))
      .thenFails({
        _tag: "RuleViolated",
        code: "OTP_NOT_ISSUED",
      })
  })
  it("a success resets the wrong-attempt count", () => {
    spec
      .given([issued(), ...fourWrong, verified(), issued(later(2), "hash-2")])
      .when(verify("wrong", later(3)))
      .then([rejected(1, later(3))])
  })
})

describe("a locked phone number", () => {
  const history = [issued(), ...fourWrong, rejected(5), locked()]
  it("even the right code is refused while locked, saying until when", () => {
    spec
      .given(history)
      .when(verify("hash-1", later(2)))
      .thenFails({
        _tag: "RuleViolated",
        code: "LOGIN_LOCKED",
        reason: "too many wrong codes: this phone number is locked until 2026-03-01T10:16:00.000Z",
      })
  })
  it("no new code is sent while locked", () => {
    spec
      .given(history)
      .when(issue(later(10)))
      .thenFails({ _tag: "RuleViolated", code: "LOGIN_LOCKED" })
  })
  it("after 15 minutes a new code can be issued and used", () => {
    spec
      .given(history)
      .when(issue(later(16), "hash-3"))
      .then([issued(later(16), "hash-3")])
    spec
      .given([...history, issued(later(16), "hash-3")])
      .when(verify("hash-3", later(17)))
      .then([verified(later(17))])
  })
  it("the code pending at the lock is void after the lock", () => {
    spec
      .given(history)
      .when(verify("hash-1", later(16)))
      .thenFails({ _tag: "RuleViolated", code: "OTP_NOT_ISSUED" })
  })
  it("tells how long to wait", () => {
    const state = fold(LoginChallenge.aggregate, history)
    assert.strictEqual(LoginChallenge.retryAfterSeconds(state, later(2)), 14 * 60)
    assert.strictEqual(LoginChallenge.retryAfterSeconds(state, later(16)), undefined)
  })
})

describe("a phone number locked before (locks escalate)", () => {
  const minutes = (at: DateTime.Utc) => at.epochMilliseconds / 60_000 - t0.epochMilliseconds / 60_000
  /** Five wrong codes on a fresh code sent at `at`, then the lock that ends `lockMinutes` later. */
  const lockRound = (at: DateTime.Utc, lockFor: number) => {
    const wrongAt = DateTime.add(at, { minutes: 1 })
    return [
      issued(at, `hash-${minutes(at)}`),
      ...[1, 2, 3, 4, 5].map((n) => rejected(n, wrongAt)),
      LoginChallenge.LoginLocked.make({
        ...challenge,
        lockedUntil: DateTime.add(wrongAt, { minutes: lockFor }),
        at: wrongAt,
      }),
    ]
  }
  const fiveWrongAfter = (history: ReadonlyArray<LoginChallenge.LoginChallengeEvent>, at: DateTime.Utc) =>
    spec
      .given([...history, issued(at, "hash-x"), ...[1, 2, 3, 4].map((n) => rejected(n, at))])
      .when(verify("wrong", at))
  const lockedFor = (at: DateTime.Utc, lockFor: number) => [
    rejected(5, at),
    LoginChallenge.LoginLocked.make({ ...challenge, lockedUntil: DateTime.add(at, { minutes: lockFor }), at }),
  ]
  const first = lockRound(t0, 15) // locked 10:01 - 10:16
  const second = lockRound(later(20), 60) // locked 10:21 - 11:21

  it("the second lock within a day of the first lasts 1 hour", () => {
    fiveWrongAfter(first, later(20)).then(lockedFor(later(20), 60))
  })
  it("the third lock within a day of the second lasts 24 hours", () => {
    fiveWrongAfter([...first, ...second], later(90)).then(lockedFor(later(90), 24 * 60))
  })
  it("further locks within a day of the previous one stay at 24 hours", () => {
    const third = lockRound(later(90), 24 * 60) // locked 11:31 - next day 11:31
    fiveWrongAfter([...first, ...second, ...third], later(91 + 24 * 60 + 5)).then(
      lockedFor(later(91 + 24 * 60 + 5), 24 * 60),
    )
  })
  it("a lock more than a day after the previous one ended is back to 15 minutes", () => {
    fiveWrongAfter(first, later(16 + 24 * 60)).then(lockedFor(later(16 + 24 * 60), 15))
  })
  it("a successful login starts the escalation over at 15 minutes", () => {
    const loggedIn = [...first, issued(later(20), "hash-ok"), verified(later(21))]
    fiveWrongAfter(loggedIn, later(30)).then(lockedFor(later(30), 15))
  })
  it("tells how long to wait: the escalated lock", () => {
    const state = fold(LoginChallenge.aggregate, [...first, ...second])
    assert.strictEqual(LoginChallenge.retryAfterSeconds(state, later(21)), 60 * 60)
    assert.strictEqual(LoginChallenge.nextLockMinutes(state, later(90)), 24 * 60)
  })
})

describe("a phone number's daily budget of wrong codes", () => {
  /** Four wrong codes then a login, at hour `h`: wrong codes without a lock. */
  const fourWrongThenLogin = (h: number) => {
    const at = later(h * 60)
    return [issued(at, `hash-${h}`), ...[1, 2, 3, 4].map((n) => rejected(n, at)), issued(at, `ok-${h}`), verified(at)]
  }
  const sixteenWrong = [0, 1, 2, 3].flatMap(fourWrongThenLogin) // 16 wrong codes from 10:00 to 13:00
  const more = (at: DateTime.Utc, wrong: number) => [
    issued(at, "hash-more"),
    ...Array.from({ length: wrong }, (_, i) => rejected(i + 1, at)),
  ]

  it("a login does not reset it: the 20th wrong code of the day locks until the first is 24 hours old", () => {
    spec
      .given([...sixteenWrong, ...more(later(5 * 60), 3)])
      .when(verify("wrong", later(5 * 60)))
      .then([
        rejected(4, later(5 * 60)),
        LoginChallenge.LoginLocked.make({
          ...challenge,
          lockedUntil: DateTime.add(t0, { hours: 24 }),
          at: later(5 * 60),
        }),
      ])
  })
  it("tells how many wrong codes are left: the fewer of the lock's and the day's", () => {
    const state = fold(LoginChallenge.aggregate, [...sixteenWrong, ...more(later(5 * 60), 1)])
    assert.strictEqual(LoginChallenge.wrongCodesLeft(state, later(5 * 60)), 3)
    assert.strictEqual(LoginChallenge.wrongCodesLeft(state, later(24 * 60 + 1)), 4)
  })
  /** `count` wrong codes then a login, at `minute`. */
  const wrongThenLogin = (minute: number, count: number) => {
    const at = later(minute)
    return [
      issued(at, `hash-${minute}`),
      ...Array.from({ length: count }, (_, i) => rejected(i + 1, at)),
      issued(at, `ok-${minute}`),
      verified(at),
    ]
  }
  const twentiethAt = later(25 * 60)
  const lockedAtTheTwentieth = (lockedUntil: DateTime.Utc) => [
    rejected(4, twentiethAt),
    LoginChallenge.LoginLocked.make({ ...challenge, lockedUntil, at: twentiethAt }),
  ]
  it("the 20th wrong code locks until the oldest wrong code of the last 24 hours is a day old, not an older one", () => {
    // one wrong code exactly 24 hours before the 20th (it no longer counts), then 16 within the day
    const history = [60, 120, 180, 240, 300].flatMap((minute) => wrongThenLogin(minute, minute === 60 ? 1 : 4))
    spec
      .given([...history, ...more(twentiethAt, 3)])
      .when(verify("wrong", twentiethAt))
      .then(lockedAtTheTwentieth(DateTime.add(later(120), { hours: 24 })))
  })
  it("the 20th wrong code locks at least as long as the escalated lock", () => {
    // the oldest of the day's 20 is a day old 5 minutes after the 20th: the 15-minute lock is longer
    const history = [65, 120, 180, 240].flatMap((minute) => wrongThenLogin(minute, 4))
    spec
      .given([...history, ...more(twentiethAt, 3)])
      .when(verify("wrong", twentiethAt))
      .then(lockedAtTheTwentieth(DateTime.add(twentiethAt, { minutes: 15 })))
  })
  it("a wrong code exactly 24 hours old no longer counts", () => {
    const state = fold(LoginChallenge.aggregate, [...sixteenWrong, ...more(later(5 * 60), 1)])
    assert.strictEqual(LoginChallenge.wrongCodesLeft(state, later(24 * 60)), 4)
    spec
      .given([...sixteenWrong, ...more(later(24 * 60), 3)])
      .when(verify("wrong", later(24 * 60)))
      .then([rejected(4, later(24 * 60))])
  })
  it("wrong codes older than 24 hours no longer count", () => {
    spec
      .given([...sixteenWrong, ...more(later(24 * 60 + 1), 3)])
      .when(verify("wrong", later(24 * 60 + 1)))
      .then([rejected(4, later(24 * 60 + 1))])
  })
  it("the phone is locked for the rest of the budget's day, even for the right code", () => {
    const lockedAtTheTwentieth = [
      ...sixteenWrong,
      ...more(later(5 * 60), 4),
      LoginChallenge.LoginLocked.make({
        ...challenge,
        lockedUntil: DateTime.add(t0, { hours: 24 }),
        at: later(5 * 60),
      }),
    ]
    spec
      .given(lockedAtTheTwentieth)
      .when(issue(later(23 * 60)))
      .thenFails({ _tag: "RuleViolated", code: "LOGIN_LOCKED" })
    const state = fold(LoginChallenge.aggregate, lockedAtTheTwentieth)
    assert.strictEqual(LoginChallenge.retryAfterSeconds(state, later(23 * 60)), 60 * 60)
  })
})

describe("resend limits", () => {
  const fiveCodes = [0, 5, 10, 15, 20].map((m) => issued(later(m), `hash-${m}`))
  it("a sixth code within an hour is refused", () => {
    spec
      .given(fiveCodes)
      .when(issue(later(30)))
      .thenFails({
        _tag: "RuleViolated",
        code: "OTP_RESEND_LIMIT",
        reason: "at most 5 codes may be sent to a phone number in an hour",
      })
  })
  it("a code is allowed again once the oldest of the five is an hour old", () => {
    spec
      .given(fiveCodes)
      .when(issue(later(60), "hash-60"))
      .then([issued(later(60), "hash-60")])
  })
  it("tells how long to wait for the next code", () => {
    const state = fold(LoginChallenge.aggregate, fiveCodes)
    assert.strictEqual(LoginChallenge.retryAfterSeconds(state, later(30)), 30 * 60)
  })
})

describe("what a challenge remembers", () => {
  it("the first code: when it was sent, and no wrong code yet", () => {
    spec
      .given([])
      .when(issue())
      .thenState((state) => {
        assert.strictEqual(state._tag, "AwaitingCode")
        if (state._tag === "AwaitingCode") {
          assert.deepStrictEqual(state.recentCodes, [t0])
          assert.deepStrictEqual(state.recentWrongCodes, [])
        }
      })
  })
  it("after a login no code is pending (Idle)", () => {
    assert.strictEqual(fold(LoginChallenge.aggregate, [issued(), verified()])._tag, "Idle")
  })
  it("only the times of the last 5 codes and of the last 20 wrong codes", () => {
    const codes = [0, 20, 40, 60, 80, 100, 120].map((m) => issued(later(m), `hash-${m}`))
    const state = fold(LoginChallenge.aggregate, codes)
    assert.strictEqual(state._tag === "AwaitingCode" && state.recentCodes.length, 5)
    const wrong = Array.from({ length: 22 }, (_, i) => rejected(1, later(200 + i)))
    const after = fold(LoginChallenge.aggregate, [...codes, ...wrong])
    assert.strictEqual(after._tag === "AwaitingCode" && after.recentWrongCodes.length, 20)
  })
  it("its events are stored at version 1", () => {
    assert.strictEqual(LoginChallenge.aggregate.eventVersion("LoginCodeIssued"), 1)
  })
})

describe("an event that does not fit the state leaves it unchanged", () => {
  it("a login, a wrong code or a lock before any code was sent", () => {
    spec.given([]).ignores(verified())
    spec.given([]).ignores(rejected(1))
    spec.given([]).ignores(locked())
  })
})

describe("properties", () => {
  const command = fc.oneof(
    fc.record({
      kind: fc.constant("issue" as const),
      hash: fc.constantFrom("h1", "h2"),
      minutes: fc.integer({ min: 0, max: 20 }),
    }),
    fc.record({
      kind: fc.constant("verify" as const),
      hash: fc.constantFrom("h1", "h2", "bad"),
      minutes: fc.integer({ min: 0, max: 20 }),
    }),
  )
  const play = (steps: ReadonlyArray<{ kind: "issue" | "verify"; hash: string; minutes: number }>) => {
    let at = t0
    let state = LoginChallenge.initialState
    const log: Array<LoginChallenge.LoginChallengeEvent> = []
    const outcomes: Array<{
      state: LoginChallenge.State
      command: LoginChallenge.Command
      events: ReadonlyArray<LoginChallenge.LoginChallengeEvent>
    }> = []
    for (const step of steps) {
      at = DateTime.add(at, { minutes: step.minutes })
      const cmd: LoginChallenge.Command = step.kind === "issue" ? issue(at, step.hash) : verify(step.hash, at)
      const decision = LoginChallenge.decide(cmd, state)
      const events = decision._tag === "Success" ? decision.success : []
      outcomes.push({ state, command: cmd, events })
      for (const e of events) state = LoginChallenge.evolve(state, e)
      log.push(...events)
    }
    return { state, log, outcomes }
  }

  it("replaying the recorded events reproduces the state", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (steps) => {
        const { state, log } = play(steps)
        assert.deepStrictEqual(fold(LoginChallenge.aggregate, log), state)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("a code logs in at most once, and never after it expired", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (steps) => {
        const { log } = play(steps)
        // Each issued code is told apart by its position in the log: the same hash may be issued twice at one instant.
        const used = new Set<number>()
        let pending: LoginChallenge.LoginCodeIssued | undefined
        let pendingIndex = -1
        for (const [index, event] of log.entries()) {
          if (event._tag === "LoginCodeIssued") {
            pending = event
            pendingIndex = index
          }
          if (event._tag === "LoginCodeVerified") {
            assert.isDefined(pending)
            assert.isFalse(used.has(pendingIndex))
            used.add(pendingIndex)
            assert.isTrue(event.at.epochMilliseconds < (pending?.expiresAt.epochMilliseconds ?? 0))
          }
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("never more than five codes in any hour, never more than five wrong codes without a lock, at most 20 a day", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (steps) => {
        const { log } = play(steps)
        const sent = log.filter((e) => e._tag === "LoginCodeIssued").map((e) => e.at.epochMilliseconds)
        for (const s of sent) assert.isAtMost(sent.filter((x) => x >= s && x < s + 3_600_000).length, 5)
        for (const e of log) if (e._tag === "LoginCodeRejected") assert.isAtMost(e.failedAttempts, 5)
        log.forEach((e, i) => {
          if (e._tag === "LoginCodeRejected" && e.failedAttempts === 5)
            assert.strictEqual(log[i + 1]?._tag, "LoginLocked")
        })
        const wrong = log.filter((e) => e._tag === "LoginCodeRejected").map((e) => e.at.epochMilliseconds)
        for (const w of wrong) assert.isAtMost(wrong.filter((x) => x >= w && x < w + 86_400_000).length, 20)
      }),
      seeded({ numRuns: 200 }),
    )
  })

  it("no code is accepted while the phone is locked", () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (steps) => {
        const { outcomes } = play(steps)
        for (const { state, command: cmd, events } of outcomes) {
          if (LoginChallenge.isLocked(state, cmd.at)) assert.strictEqual(events.length, 0)
        }
      }),
      seeded({ numRuns: 200 }),
    )
  })
})
