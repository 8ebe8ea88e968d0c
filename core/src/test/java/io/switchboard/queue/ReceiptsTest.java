package io.switchboard.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ReceiptsTest {

  @Test
  void encodeDecode_roundTripsEverySerialAndCount() {
    Random rnd = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      long key = rnd.nextLong();
      long serial = rnd.nextLong() | 1;
      int count = rnd.nextInt();
      String receipt = Receipts.encode(key, serial, count);
      assertEquals(27, receipt.length());
      assertEquals(new Receipts.Handle(serial, count), Receipts.decode(key, receipt, "q"));
    }
  }

  @Test
  void decode_anyAlteredCharacter_isInvalid() {
    String receipt = Receipts.encode(7, 12345, 3);
    for (int i = 0; i < receipt.length(); i++) {
      char[] chars = receipt.toCharArray();
      chars[i] = chars[i] == 'A' ? 'B' : 'A';
      String altered = new String(chars);
      QueueException e =
          assertThrows(QueueException.class, () -> Receipts.decode(7, altered, "q"), altered);
      assertEquals(ErrorCode.RECEIPT_INVALID, e.code());
    }
  }

  @Test
  void decode_otherQueuesKey_isInvalid() {
    String receipt = Receipts.encode(7, 12345, 3);
    assertEquals(
        ErrorCode.RECEIPT_INVALID,
        assertThrows(QueueException.class, () -> Receipts.decode(8, receipt, "q")).code());
  }
}
