package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Decodes {@code text} (UTF-8) and {@code ascii} values, top-level or nested (every nested text
 * value is decoded by {@link #decode}; top-level text cells by {@link RowsParser}, with {@link
 * #checkedUtf8}).
 *
 * <p><b>Strict by default.</b> A {@code text} value that is not valid UTF-8, exactly as the JDK's
 * UTF-8 decoder with {@link java.nio.charset.CodingErrorAction#REPORT} judges it (lone continuation
 * bytes, cut sequences, overlong forms, surrogates, code points above U+10FFFF), and an {@code
 * ascii} value with a byte above 0x7F, are {@link Reason#INVALID_VALUE} at the first bad byte. With
 * {@link ParseLimits#replaceMalformedText()} they decode instead as the JDK's decoders replace
 * them: one U+FFFD per malformed UTF-8 sequence, and per non-ASCII byte.
 *
 * <p><b>Cost.</b> Values are decoded as they always are, by the JDK's intrinsified decoders with
 * replacement ({@code new String(bytes, UTF_8)}, or Netty's {@code toString}, which ends there),
 * and only then checked: a malformed sequence always leaves a U+FFFD in the string, so a string
 * without one is valid. For a compact Latin-1 string (nearly all ASCII text) {@code
 * indexOf('\uFFFD')} returns at once, since the char cannot be in it; other strings take one
 * vectorised scan. Only a string holding U+FFFD is examined further, to tell an encoded U+FFFD from
 * a malformed sequence. The check allocates nothing; only an error does.
 */
final class TextDeserializer extends ValueDeserializer {
  private final boolean ascii;

  /** {@link ParseLimits#replaceMalformedText()}. */
  private final boolean replaceMalformed;

  TextDeserializer(NativeType type, boolean replaceMalformed) {
    super(type);
    this.ascii = type == NativeType.ASCII;
    this.replaceMalformed = replaceMalformed;
  }

  @Override
  boolean emptyIsValue() {
    return true;
  }

  @Override
  void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
    sink.onString(column, decode(buf, index, length));
  }

  @Override
  String decode(ByteBuf buf, int index, int length) {
    if (ascii) {
      return ascii(buf, index, length);
    }
    return checkedUtf8(buf.toString(index, length, StandardCharsets.UTF_8), buf, index, length);
  }

  /**
   * Accepts the value without decoding it when {@link TextChecks} can (ASCII, or well-formed UTF-8
   * for {@code text}); otherwise decodes it, so that the decoder gives the verdict and the error.
   */
  @Override
  void validate(ByteBuf buf, int index, int length) {
    if (replaceMalformed) {
      return; // every byte string decodes
    }
    if (buf.hasArray()) {
      byte[] a = buf.array();
      int from = buf.arrayOffset() + index;
      if (ascii ? TextChecks.ascii(a, from, length) : TextChecks.utf8(a, from, length)) {
        return;
      }
    } else if (TextChecks.ascii(buf, index, length)) {
      return;
    }
    decode(buf, index, length);
  }

  /**
   * {@code s}, the UTF-8 bytes {@code [index, index + length)} of {@code buf} decoded with
   * replacement; unless they are malformed and this deserializer is strict, then an {@link
   * Reason#INVALID_VALUE} at the first malformed byte.
   */
  String checkedUtf8(String s, ByteBuf buf, int index, int length) {
    if (!replaceMalformed && s.indexOf('\uFFFD') >= 0) {
      rejectMalformedUtf8(s, buf, index, length);
    }
    return s;
  }

  /**
   * Throws if the U+FFFD in {@code s} stands for malformed bytes; returns if every one is encoded
   * in them. Apart from {@link #checkedUtf8}, so that what the row loop inlines stays small.
   */
  private void rejectMalformedUtf8(String s, ByteBuf buf, int index, int length) {
    int at = firstMalformedUtf8(s, buf, index, length);
    if (at >= 0) {
      throw CqlParseException.at(
          Reason.INVALID_VALUE,
          "value",
          index + at,
          type,
          "malformed UTF-8 at byte "
              + at
              + " of "
              + length
              + ": 0x"
              + hex(buf.getByte(index + at))
              + " (ParseLimits.replaceMalformedText)");
    }
  }

  private String ascii(ByteBuf buf, int index, int length) {
    // Not Netty's toString: it decodes US-ASCII byte by byte, mapping 0x80-0xFF to
    // U+0080-U+00FF. The JDK's decoder replaces each of them with U+FFFD.
    String s;
    if (buf.hasArray()) {
      s = new String(buf.array(), buf.arrayOffset() + index, length, StandardCharsets.US_ASCII);
    } else {
      byte[] b = new byte[length];
      buf.getBytes(index, b);
      s = new String(b, StandardCharsets.US_ASCII);
    }
    if (!replaceMalformed && s.indexOf('\uFFFD') >= 0) {
      throw notAscii(buf, index, length);
    }
    return s;
  }

  /** The error for the first byte above 0x7F of an ascii value. */
  private CqlParseException notAscii(ByteBuf buf, int index, int length) {
    int at = 0;
    while (at < length - 1 && buf.getByte(index + at) >= 0) {
      at++;
    }
    return CqlParseException.at(
        Reason.INVALID_VALUE,
        "value",
        index + at,
        type,
        "byte 0x"
            + hex(buf.getByte(index + at))
            + " at byte "
            + at
            + " of "
            + length
            + " is not ASCII (ParseLimits.replaceMalformedText)");
  }

  /**
   * Where the first malformed sequence starts in the UTF-8 bytes {@code [index, index + length)} of
   * {@code buf}, counted from {@code index}, given {@code s}, those bytes decoded with replacement;
   * -1 if there is none (every U+FFFD in {@code s} is encoded in the bytes).
   *
   * <p>Decoding goes left to right, so the chars before the first replacement come from valid
   * sequences, whose UTF-8 length gives the byte offset of each char; at a U+FFFD, the bytes there
   * are either {@code EF BF BD} (a valid U+FFFD: go on) or the malformed sequence. The decoder's
   * own verdict is used, not a second validator that could disagree with it.
   */
  static int firstMalformedUtf8(String s, ByteBuf buf, int index, int length) {
    int at = 0;
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        at += 1;
      } else if (c < 0x800) {
        at += 2;
      } else if (Character.isHighSurrogate(c)) {
        // a UTF-8 decoder emits surrogates only as the pair of a 4-byte sequence
        at += 4;
        i++;
      } else if (c == '\uFFFD' && !encodedReplacement(buf, index + at, length - at)) {
        return at;
      } else {
        at += 3;
      }
    }
    return -1;
  }

  /** Whether the {@code remaining} bytes at {@code p} start with U+FFFD's {@code EF BF BD}. */
  private static boolean encodedReplacement(ByteBuf buf, int p, int remaining) {
    return remaining >= 3
        && buf.getByte(p) == (byte) 0xEF
        && buf.getByte(p + 1) == (byte) 0xBF
        && buf.getByte(p + 2) == (byte) 0xBD;
  }

  /** Two lower-case hex digits, without a {@code Formatter} (and its regex) on the error path. */
  private static String hex(byte b) {
    String digits = "0123456789abcdef";
    return new String(new char[] {digits.charAt((b >> 4) & 0xF), digits.charAt(b & 0xF)});
  }
}
