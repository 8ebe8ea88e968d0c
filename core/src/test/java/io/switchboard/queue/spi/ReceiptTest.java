package io.switchboard.queue.spi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReceiptTest {

  private static final ReceiptKeys KEYS = ReceiptKeys.of(bytes(1));
  private static final ReceiptKey Q = KEYS.derive("q", 7);

  private static byte[] bytes(int seed) {
    byte[] b = new byte[ReceiptKeys.KEY_BYTES];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static ErrorCode refusal(ReceiptKey key, String receipt) {
    return assertThrows(QueueException.class, () -> Receipt.decode(key, receipt, "q"), receipt)
        .code();
  }

  /**
   * Handles issued before the performance round (computed with main at 612ce7c, which used
   * java.util.Base64 and cloned SHA-256 states): the rewritten MAC and base64 give the same
   * handles, so a handle issued before an upgrade still acks after it.
   */
  @Test
  void handlesIssuedBeforeTheRewrite_areIssuedAndAcceptedAlike() {
    String[] before = {
      "AAAAAAAAMDkAAAADBVRL7i1_QEWoh3cwiypH",
      "f_______________9BY7Ec1o_78Eh_4LUQf8",
      "AAAAAAAAAAEAAAAAjSrcx6KShkVH9lHfpVfi"
    };
    Receipt[] leases = {new Receipt(12345, 3), new Receipt(Long.MAX_VALUE, -1), new Receipt(1, 0)};
    for (int i = 0; i < leases.length; i++) {
      assertEquals(before[i], leases[i].encode(Q));
      assertEquals(leases[i], Receipt.decode(Q, before[i], "q"));
    }
  }

  @Test
  void decode_charactersOutsideBase64url_areInvalid() {
    String receipt = new Receipt(12345, 3).encode(Q);
    for (char c : new char[] {'+', '/', '=', ' ', '\u00e9', '\u0100', '\ud800', '{'}) {
      for (int i : new int[] {0, 17, receipt.length() - 1}) {
        char[] chars = receipt.toCharArray();
        chars[i] = c;
        assertEquals(ErrorCode.RECEIPT_INVALID, refusal(Q, new String(chars)));
      }
    }
  }

  @Test
  void mac_manyThreadsAtOnce_eachGetsTheRightTag() throws Exception {
    int threads = 4;
    int perThread = 2_000;
    String[] expected = new String[perThread];
    for (int i = 0; i < perThread; i++) {
      expected[i] = new Receipt(i + 1, i).encode(Q);
    }
    java.util.concurrent.ExecutorService pool =
        java.util.concurrent.Executors.newFixedThreadPool(threads);
    try {
      java.util.List<java.util.concurrent.Future<Integer>> done = new java.util.ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            pool.submit(
                () -> {
                  int wrong = 0;
                  for (int i = 0; i < perThread; i++) {
                    if (!expected[i].equals(new Receipt(i + 1, i).encode(Q))) {
                      wrong++;
                    }
                  }
                  return wrong;
                }));
      }
      for (java.util.concurrent.Future<Integer> f : done) {
        assertEquals(0, f.get(), "handles that differ from the one-thread ones");
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void encodeDecode_roundTripsEverySerialAndEpoch() {
    Random rnd = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      long serial = rnd.nextLong() | 1;
      int epoch = rnd.nextInt();
      String receipt = new Receipt(serial, epoch).encode(Q);
      assertEquals(Receipt.LENGTH, receipt.length());
      assertTrue(receipt.matches("[A-Za-z0-9_-]+"), receipt);
      assertEquals(new Receipt(serial, epoch), Receipt.decode(Q, receipt, "q"));
    }
  }

  @Test
  void decode_anyTamperedCharacter_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(Q);
    for (int i = 0; i < receipt.length(); i++) {
      for (char c : new char[] {'A', 'B', '-', '_', '9'}) {
        if (receipt.charAt(i) == c) {
          continue;
        }
        char[] chars = receipt.toCharArray();
        chars[i] = c;
        assertEquals(ErrorCode.RECEIPT_INVALID, refusal(Q, new String(chars)));
      }
    }
  }

  @Test
  void decode_handleOfAnotherQueue_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(KEYS.derive("a", 7));
    assertEquals(ErrorCode.RECEIPT_INVALID, refusal(KEYS.derive("b", 7), receipt));
  }

  @Test
  void decode_handleOfAnEarlierQueueOfTheSameName_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(KEYS.derive("q", 7));
    assertEquals(ErrorCode.RECEIPT_INVALID, refusal(KEYS.derive("q", 8), receipt));
  }

  @Test
  void decode_handleOfAnotherServerKey_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(Q);
    assertEquals(
        ErrorCode.RECEIPT_INVALID, refusal(ReceiptKeys.of(bytes(2)).derive("q", 7), receipt));
  }

  @Test
  void decode_oldShortHandlesAndJunk_areInvalid() {
    for (String junk :
        new String[] {
          "", "AAAAAAAAAAAAAAAAAAAAAAAAAAA", "x".repeat(Receipt.LENGTH), "é".repeat(36)
        }) {
      assertEquals(ErrorCode.RECEIPT_INVALID, refusal(Q, junk));
    }
    assertEquals(
        ErrorCode.RECEIPT_INVALID,
        assertThrows(QueueException.class, () -> Receipt.decode(Q, null, "q")).code());
  }

  @Test
  void mac_isHmacSha256OfTheDerivedKey() throws Exception {
    byte[] server = bytes(4);
    javax.crypto.Mac derive = javax.crypto.Mac.getInstance("HmacSHA256");
    derive.init(new javax.crypto.spec.SecretKeySpec(server, "HmacSHA256"));
    derive.update("switchboard receipt v1".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    derive.update(
        java.nio.ByteBuffer.allocate(4 + 1 + 8).putInt(1).put((byte) 'q').putLong(7).array());
    javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
    mac.init(new javax.crypto.spec.SecretKeySpec(derive.doFinal(), "HmacSHA256"));
    byte[] data = new byte[12];
    new Random(5).nextBytes(data);
    assertArrayEquals(
        mac.doFinal(data), ReceiptKeys.of(server).derive("q", 7).mac(data, 0, data.length));
  }

  @Test
  void parse_carriesTheIssuedTagOnly_andVerifyRefusesAnyOther() {
    Receipt.Issued issued = new Receipt(77, 5).issue(Q);
    Receipt.Presented same = Receipt.parse(issued.handle(), "q");
    assertEquals(77, same.serial());
    assertEquals(5, same.leaseEpoch());
    assertTrue(same.carries(issued.tag()));
    same.verify(Q, issued.handle(), "q");
    Receipt.Issued other = new Receipt(77, 6).issue(Q);
    assertFalse(same.carries(other.tag()), "another lease's tag");
    String foreign = new Receipt(77, 5).encode(KEYS.derive("q", 8));
    Receipt.Presented forged = Receipt.parse(foreign, "q"); // parses: the MAC is not read yet
    assertFalse(forged.carries(issued.tag()));
    assertEquals(
        ErrorCode.RECEIPT_INVALID,
        assertThrows(QueueException.class, () -> forged.verify(Q, foreign, "q")).code());
  }

  @Test
  void forQueue_derivesOnceAndFollowsANewSeed() {
    ReceiptKeys keys = ReceiptKeys.of(bytes(3));
    ReceiptKey first = keys.forQueue("q", 1);
    assertTrue(first == keys.forQueue("q", 1));
    ReceiptKey second = keys.forQueue("q", 2);
    String receipt = new Receipt(5, 1).encode(second);
    assertEquals(new Receipt(5, 1), Receipt.decode(keys.derive("q", 2), receipt, "q"));
  }

  @Test
  void load_makesAKeyOnceAndKeepsIt() {
    SystemRecords records = SystemRecords.inMemory();
    ReceiptKey a = ReceiptKeys.load(records).derive("q", 1);
    ReceiptKey b = ReceiptKeys.load(records).derive("q", 1);
    String receipt = new Receipt(9, 9).encode(a);
    assertEquals(new Receipt(9, 9), Receipt.decode(b, receipt, "q"));
    assertEquals(ReceiptKeys.KEY_BYTES, records.get(ReceiptKeys.RECORD).orElseThrow().length);
  }

  @Test
  void load_damagedRecord_isRefusedNamingIt() {
    SystemRecords records = SystemRecords.inMemory();
    records.put(ReceiptKeys.RECORD, new byte[3]);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> ReceiptKeys.load(records));
    assertTrue(e.getMessage().contains(ReceiptKeys.RECORD), e.getMessage());
  }
}
