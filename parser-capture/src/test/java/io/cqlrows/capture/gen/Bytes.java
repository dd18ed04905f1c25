package io.cqlrows.capture.gen;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A growable byte array with the native protocol's big-endian notations ({@code [short]}, {@code
 * [int]}, {@code [string]}, {@code [long string]}, {@code [bytes]}, {@code [short bytes]}, {@code
 * [string list]}, {@code [string map]}, {@code [string multimap]}). Reused across envelopes: {@link
 * #reset()} keeps the array. Not thread-safe.
 */
final class Bytes {
  private byte[] a = new byte[1 << 12];
  private int n;

  /** The backing array; valid up to {@link #length()}. */
  byte[] array() {
    return a;
  }

  int length() {
    return n;
  }

  void reset() {
    n = 0;
  }

  private void room(int more) {
    if (n + more > a.length) {
      a = Arrays.copyOf(a, Math.max(a.length * 2, n + more));
    }
  }

  Bytes u8(int v) {
    room(1);
    a[n++] = (byte) v;
    return this;
  }

  Bytes u16(int v) {
    room(2);
    a[n++] = (byte) (v >>> 8);
    a[n++] = (byte) v;
    return this;
  }

  Bytes i32(int v) {
    room(4);
    putInt(n, v);
    n += 4;
    return this;
  }

  /** Overwrites the four bytes at {@code pos} (a length written after its content). */
  void putInt(int pos, int v) {
    a[pos] = (byte) (v >>> 24);
    a[pos + 1] = (byte) (v >>> 16);
    a[pos + 2] = (byte) (v >>> 8);
    a[pos + 3] = (byte) v;
  }

  Bytes raw(byte[] src, int off, int len) {
    room(len);
    System.arraycopy(src, off, a, n, len);
    n += len;
    return this;
  }

  Bytes raw(byte[] src) {
    return raw(src, 0, src.length);
  }

  /** {@code [string]}: a [short] length and UTF-8 bytes. */
  Bytes string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return u16(b.length).raw(b);
  }

  /** {@code [long string]}: an [int] length and UTF-8 bytes. */
  Bytes longString(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    return i32(b.length).raw(b);
  }

  /** {@code [short bytes]}. */
  Bytes shortBytes(byte[] b) {
    return u16(b.length).raw(b);
  }

  /** {@code [bytes]} of {@code len} bytes taken from {@code src}, circularly from {@code off}. */
  Bytes bytesFrom(byte[] src, int off, int len) {
    i32(len);
    room(len);
    int done = 0;
    while (done < len) {
      int p = (off + done) % src.length;
      int k = Math.min(len - done, src.length - p);
      System.arraycopy(src, p, a, n + done, k);
      done += k;
    }
    n += len;
    return this;
  }

  /** {@code [string map]}. */
  Bytes stringMap(Map<String, String> map) {
    u16(map.size());
    map.forEach((k, v) -> string(k).string(v));
    return this;
  }

  /** {@code [string multimap]}: a [short] count of ([string] key, [string list] values). */
  Bytes stringMultimap(Map<String, List<String>> map) {
    u16(map.size());
    map.forEach(
        (k, values) -> {
          string(k).u16(values.size());
          values.forEach(this::string);
        });
    return this;
  }
}
