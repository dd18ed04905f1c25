package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import org.junit.jupiter.api.Test;

class FrameBoundariesTest {
  /** A v4 response envelope with a body of {@code body} bytes. */
  private static byte[] frame(int version, int body) {
    byte[] f = new byte[9 + body];
    f[0] = (byte) (0x80 | version);
    f[4] = 0x08;
    f[5] = (byte) (body >>> 24);
    f[6] = (byte) (body >>> 16);
    f[7] = (byte) (body >>> 8);
    f[8] = (byte) body;
    return f;
  }

  private static byte[] stream(byte[]... frames) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] f : frames) {
      out.writeBytes(f);
    }
    return out.toByteArray();
  }

  /** Sees {@code [from, to)} of {@code bytes} in reads of {@code step} bytes. */
  private static void see(FrameBoundaries b, byte[] bytes, int from, int to, int step) {
    for (int p = from; p < to; p += step) {
      b.see(Unpooled.wrappedBuffer(bytes, p, Math.min(step, to - p)));
    }
  }

  @Test
  void headersCutAcrossReadsAreFollowed() {
    byte[] s = stream(frame(4, 0), frame(4, 300), frame(4, 5000), frame(4, 20));
    for (int step : new int[] {1, 3, 8, 9, 10, 1448}) {
      FrameBoundaries b = new FrameBoundaries();
      b.startAt(0, true);
      // the third frame starts at 9 + 309 = 318 and ends at 318 + 5009 = 5327
      see(b, s, 0, 400, step);
      assertEquals(5327 - 1400, b.gap(400, 1000), "step " + step);
      // the resumed stream is followed on
      see(b, s, 1400, 5327 + 9, step);
      assertEquals(2, b.gap(5327 + 9, 18), "step " + step);
    }
  }

  @Test
  void theNextStartIsUnknownWhenItsHeaderIsInTheGap() {
    byte[] s = stream(frame(4, 100), frame(4, 100));
    FrameBoundaries b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 50, 7);
    // the gap ends just before the next header: resume there
    assertEquals(0, b.gap(50, 59));
    b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 50, 7);
    // one byte of the next header in the gap
    assertEquals(-1, b.gap(50, 60));
    // and from then on, until a start is given
    see(b, s, 110, 218, 7);
    assertEquals(-1, b.gap(218, 1));
    b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 109, 7);
    // a gap right at the boundary
    assertEquals(-1, b.gap(109, 5));
    b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 113, 7);
    // a header cut by the gap
    assertEquals(-1, b.gap(113, 3));
  }

  @Test
  void onlyV3AndV4FramesAreFollowed() {
    byte[] v3 = stream(frame(3, 10), frame(3, 100));
    FrameBoundaries b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, v3, 0, 40, 1448);
    // the second frame ends at 19 + 109 = 128
    assertEquals(128 - 60, b.gap(40, 20));
    // v5 switches to segments after READY: nothing is followed
    byte[] v5 = stream(frame(5, 10), frame(5, 100));
    b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, v5, 0, 40, 1448);
    assertEquals(-1, b.gap(40, 20));
  }

  @Test
  void bytesNotSeenOrAStopLoseTheBoundaries() {
    byte[] s = stream(frame(4, 100), frame(4, 100));
    FrameBoundaries b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 50, 1448);
    // 10 bytes written but not seen (a stopped direction): the offsets disagree
    assertEquals(-1, b.gap(60, 10));
    b = new FrameBoundaries();
    b.startAt(0, true);
    see(b, s, 0, 50, 1448);
    b.lose();
    assertEquals(-1, b.gap(50, 10));
    // a start found mid-stream by a search, at stream offset 1000
    b = new FrameBoundaries();
    b.startAt(1000, true);
    see(b, s, 0, 50, 1448);
    assertEquals(1109 - 1060, b.gap(1050, 10));
    // bytes passed over while skipping to the next frame count too
    b.pass(1109 - 1060);
    see(b, s, 109, 120, 1448);
    assertEquals(1218 - 1125, b.gap(1120, 5));
  }
}
