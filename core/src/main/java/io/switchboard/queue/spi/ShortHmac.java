package io.switchboard.queue.spi;

/**
 * HMAC-SHA256 (RFC 2104, FIPS 180-4) of messages of at most {@value #MAX_DATA} bytes, from the
 * SHA-256 states after the key's {@code ipad} and {@code opad} blocks, computed once per key: a MAC
 * is then two SHA-256 compressions and allocates nothing but its result. The JDK cannot start a
 * {@link java.security.MessageDigest} from a saved state without cloning it (about 500 bytes per
 * clone), and without the saved states its HMAC costs four compressions; this class does the
 * compressions itself. Not thread-safe (one message schedule per instance): {@link #copy} gives
 * another instance over the same key.
 */
final class ShortHmac {

  /** The longest message: it, the 0x80 byte and the 8-byte length fit in the final block. */
  static final int MAX_DATA = 55;

  static final int MAC_BYTES = 32;

  private static final int BLOCK = 64;

  private static final int[] K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5,
    0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3,
    0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
    0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  };

  private static final int[] IV = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  };

  private final int[] inner;
  private final int[] outer;
  private final int[] w = new int[64];
  private final int[] h = new int[8];

  /** The HMAC of {@code key} (at most one block, as the receipt keys are). */
  ShortHmac(byte[] key) {
    if (key.length > BLOCK) {
      throw new IllegalArgumentException("an HMAC key of " + key.length + " bytes; at most 64");
    }
    inner = IV.clone();
    outer = IV.clone();
    padBlock(key, (byte) 0x36);
    compress(inner, inner);
    padBlock(key, (byte) 0x5c);
    compress(outer, outer);
  }

  private ShortHmac(int[] inner, int[] outer) {
    this.inner = inner;
    this.outer = outer;
  }

  /** Another instance over the same key (the saved states are shared; they are never written). */
  ShortHmac copy() {
    return new ShortHmac(inner, outer);
  }

  /**
   * HMAC-SHA256 of {@code len} (at most {@value #MAX_DATA}) bytes of {@code data} from {@code off}.
   */
  byte[] mac(byte[] data, int off, int len) {
    if (len < 0 || len > MAX_DATA) {
      throw new IllegalArgumentException("a message of " + len + " bytes; at most " + MAX_DATA);
    }
    // inner hash: the ipad block (in the saved state), then the data, 0x80, zeros, bit length
    java.util.Arrays.fill(w, 0, 16, 0);
    for (int i = 0; i < len; i++) {
      w[i >>> 2] |= (data[off + i] & 0xFF) << (24 - 8 * (i & 3));
    }
    w[len >>> 2] |= 0x80 << (24 - 8 * (len & 3));
    w[15] = (BLOCK + len) * 8;
    compress(inner, h);
    // outer hash: the opad block (saved), then the inner hash, 0x80, zeros, bit length
    System.arraycopy(h, 0, w, 0, 8);
    w[8] = 0x80000000;
    java.util.Arrays.fill(w, 9, 15, 0);
    w[15] = (BLOCK + MAC_BYTES) * 8;
    compress(outer, h);
    byte[] out = new byte[MAC_BYTES];
    for (int i = 0; i < 8; i++) {
      int v = h[i];
      out[4 * i] = (byte) (v >>> 24);
      out[4 * i + 1] = (byte) (v >>> 16);
      out[4 * i + 2] = (byte) (v >>> 8);
      out[4 * i + 3] = (byte) v;
    }
    return out;
  }

  /** Puts the key XOR {@code pad}, as a block, in the first 16 words of the schedule. */
  private void padBlock(byte[] key, byte pad) {
    for (int i = 0; i < 16; i++) {
      int word = 0;
      for (int j = 0; j < 4; j++) {
        int at = 4 * i + j;
        byte k = at < key.length ? key[at] : 0;
        word = word << 8 | ((k ^ pad) & 0xFF);
      }
      w[i] = word;
    }
  }

  /**
   * One SHA-256 compression of the block in {@code w[0..15]} onto {@code from}, into {@code to}.
   */
  private void compress(int[] from, int[] to) {
    int[] w = this.w;
    for (int t = 16; t < 64; t++) {
      int x = w[t - 15];
      int y = w[t - 2];
      int s0 = Integer.rotateRight(x, 7) ^ Integer.rotateRight(x, 18) ^ (x >>> 3);
      int s1 = Integer.rotateRight(y, 17) ^ Integer.rotateRight(y, 19) ^ (y >>> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    int a = from[0];
    int b = from[1];
    int c = from[2];
    int d = from[3];
    int e = from[4];
    int f = from[5];
    int g = from[6];
    int hh = from[7];
    for (int t = 0; t < 64; t++) {
      int s1 = Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25);
      int ch = (e & f) ^ (~e & g);
      int t1 = hh + s1 + ch + K[t] + w[t];
      int s0 = Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22);
      int maj = (a & b) ^ (a & c) ^ (b & c);
      int t2 = s0 + maj;
      hh = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    to[0] = from[0] + a;
    to[1] = from[1] + b;
    to[2] = from[2] + c;
    to[3] = from[3] + d;
    to[4] = from[4] + e;
    to[5] = from[5] + f;
    to[6] = from[6] + g;
    to[7] = from[7] + hh;
  }
}
