package io.switchboard.queue.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.switchboard.queue.ErrorCode;
import io.switchboard.queue.QueueException;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReceiptTest {

  @Test
  void encodeDecode_roundTripsEverySerialAndCount() {
    Random rnd = new Random(42);
    for (int i = 0; i < 100_000; i++) {
      long key = rnd.nextLong();
      long serial = rnd.nextLong() | 1;
      int count = rnd.nextInt();
      String receipt = new Receipt(serial, count).encode(key);
      assertEquals(27, receipt.length());
      assertEquals(new Receipt(serial, count), Receipt.decode(key, receipt, "q"));
    }
  }

  @Test
  void decode_anyAlteredCharacter_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(7);
    for (int i = 0; i < receipt.length(); i++) {
      char[] chars = receipt.toCharArray();
      chars[i] = chars[i] == 'A' ? 'B' : 'A';
      String altered = new String(chars);
      QueueException e =
          assertThrows(QueueException.class, () -> Receipt.decode(7, altered, "q"), altered);
      assertEquals(ErrorCode.RECEIPT_INVALID, e.code());
    }
  }

  @Test
  void decode_otherQueuesKey_isInvalid() {
    String receipt = new Receipt(12345, 3).encode(7);
    assertEquals(
        ErrorCode.RECEIPT_INVALID,
        assertThrows(QueueException.class, () -> Receipt.decode(8, receipt, "q")).code());
  }
}
