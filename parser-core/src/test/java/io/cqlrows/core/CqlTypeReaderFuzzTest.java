package io.cqlrows.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.core.type.CqlType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of the two type parsers: the {@code [option]} reader ({@link
 * CqlTypeReader}) and the custom type class-name parser ({@link CustomTypeNameParser}, which the
 * former calls for id 0x0000). Any input must give a type or a {@link CqlParseException}; a type
 * must print, compare equal to itself and compile to a deserializer.
 *
 * <p><b>Input.</b> Byte 0 picks the limits (bit 0: {@link #SMALL} limits instead of the defaults,
 * so that every limit is reachable); the rest is the {@code [option]} bytes, or the class name as
 * UTF-8.
 *
 * <p>Committed inputs: {@code src/test/resources/io/cqlrows/core/CqlTypeReaderFuzzTestInputs/
 * <method>/}; see docs/testing.md, "Fuzzing".
 */
class CqlTypeReaderFuzzTest {
  /** Limits small enough for a fuzzer to cross each of them. */
  static final ParseLimits SMALL =
      ParseLimits.builder()
          .maxTypeDepth(4)
          .maxTypeNameLength(200)
          .maxUdtFields(3)
          .maxVectorDimension(16)
          .maxCollectionElements(8)
          .build();

  @FuzzTest(maxDuration = "5m")
  void option(byte[] input) {
    if (input.length == 0) {
      return;
    }
    ParseLimits limits = limits(input[0]);
    ByteBuf buf = Unpooled.wrappedBuffer(input);
    BodyReader in = new BodyReader(buf, 0, 1, input.length);
    CqlType type;
    try {
      type = CqlTypeReader.read(in, limits);
    } catch (CqlParseException e) {
      check(e.getMessage() != null, "message");
      return;
    } finally {
      check(buf.readerIndex() == 0 && buf.writerIndex() == input.length, "buffer indices moved");
    }
    check(in.position > 1 && in.position <= input.length, "position " + in.position);
    checkType(type, limits);
  }

  @FuzzTest(maxDuration = "5m")
  void customTypeName(byte[] input) {
    if (input.length == 0) {
      return;
    }
    ParseLimits limits = limits(input[0]);
    String name = new String(input, 1, input.length - 1, StandardCharsets.UTF_8);
    CqlType type;
    try {
      type = CustomTypeNameParser.parse(name, limits);
    } catch (CqlParseException e) {
      check(e.getMessage() != null, "message");
      return;
    }
    checkType(type, limits);
  }

  private static ParseLimits limits(byte config) {
    return (config & 1) != 0 ? SMALL : ParseLimits.defaults();
  }

  /** A parsed type is usable: it prints, equals itself, and compiles. */
  @SuppressWarnings({"SelfEquals", "IdentityBinaryExpression"}) // reflexive, stable hash
  private static void checkType(CqlType type, ParseLimits limits) {
    check(type != null, "null type");
    check(type.toString() != null, "toString");
    check(type.equals(type) && type.hashCode() == type.hashCode(), "equals");
    type.fixedLengthInVector();
    check(DeserializerFactory.forType(type, limits) != null, "no deserializer");
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
