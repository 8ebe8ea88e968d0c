package io.switchboard.server.security.sigv4;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.server.auth.MemoryKeyRing;
import io.switchboard.server.auth.Principal;
import io.switchboard.time.ManualClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The verifier checks the signing key and the {@code X-Amz-Date} of the last verified request
 * before its cache and its date parser (docs/benchmarks.md, "Fourth pass"); neither shortcut may
 * admit what the general path refuses.
 */
class SigV4LastKeyTest {

  private static final Instant NOW = Instant.parse("2026-11-26T03:00:00Z");

  private final MemoryKeyRing keys =
      new MemoryKeyRing(
          List.of(
              Principal.admin("AKIDTEST", "old-secret"),
              Principal.admin("AKIDOTHER", "other-secret"))); // revoking one leaves a keyed ring
  private final ManualClock clock = ManualClock.at(NOW);
  private final SigV4Verifier verifier = new SigV4Verifier(keys, clock);

  private SqsHttpRequest signed(String secret, Instant at) {
    return SigV4Test.signedPost("AKIDTEST", secret, at, "Action=ListQueues");
  }

  @Test
  void changedSecret_oldSignatureRefused_newOneVerified_afterTheOldKeyVerifiedLast() {
    assertEquals("AKIDTEST", verifier.verify(signed("old-secret", NOW)).orElseThrow().keyId());
    keys.put(Principal.admin("AKIDTEST", "new-secret"));
    SigV4Error e = assertThrows(SigV4Error.class, () -> verifier.verify(signed("old-secret", NOW)));
    assertEquals("SignatureDoesNotMatch", e.code());
    assertEquals("AKIDTEST", verifier.verify(signed("new-secret", NOW)).orElseThrow().keyId());
  }

  @Test
  void revokedKey_refusedAlthoughItVerifiedLast() {
    verifier.verify(signed("old-secret", NOW));
    keys.revoke("AKIDTEST");
    SigV4Error e = assertThrows(SigV4Error.class, () -> verifier.verify(signed("old-secret", NOW)));
    assertEquals("InvalidClientTokenId", e.code());
  }

  @Test
  void lastDate_isJudgedAgainstTheClockEachTime() {
    verifier.verify(signed("old-secret", NOW)); // this X-Amz-Date is now the last one read
    clock.advance(Duration.ofMinutes(15));
    verifier.verify(signed("old-secret", NOW)); // 15 minutes is still within the skew
    clock.advance(Duration.ofSeconds(1));
    SigV4Error e = assertThrows(SigV4Error.class, () -> verifier.verify(signed("old-secret", NOW)));
    assertEquals("RequestExpired", e.code());
    assertEquals(
        "AKIDTEST",
        verifier.verify(signed("old-secret", NOW.plusSeconds(901))).orElseThrow().keyId());
  }
}
