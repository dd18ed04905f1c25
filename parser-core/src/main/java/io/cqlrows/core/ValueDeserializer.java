package io.cqlrows.core;

import io.cqlrows.core.type.CqlType;
import io.netty.buffer.ByteBuf;

/**
 * Decodes the values of one CQL type. One instance is built per column (and per nested element
 * type) by {@link DeserializerFactory}, once per metadata, and reused for every row and page.
 *
 * <p>All reads are absolute ({@code getX(index)}) inside {@code [index, index + length)}, which the
 * caller has already checked lies inside the buffer; no reader index moves. Implementations must
 * check that {@code length} is exactly what the type needs and throw {@link CqlParseException}
 * otherwise.
 *
 * <p>Not thread-safe when it holds a reusable view (vectors); one instance per parser thread.
 */
abstract class ValueDeserializer {
  /** The type this deserializer decodes. */
  final CqlType type;

  ValueDeserializer(CqlType type) {
    this.type = type;
  }

  /**
   * Whether a zero-length value is an ordinary value of this type (text, ascii, blob, opaque
   * custom) rather than the "empty" state.
   */
  boolean emptyIsValue() {
    return false;
  }

  /**
   * Decodes a top-level cell of {@code length > 0} bytes (or {@code >= 0} if {@link
   * #emptyIsValue()}) and passes it to the sink's typed event.
   *
   * @param buf the body. Borrowed.
   */
  abstract void deliver(ByteBuf buf, int index, int length, RowSink sink, int column);

  /**
   * Decodes a nested value of {@code length > 0} bytes (or {@code >= 0} if {@link #emptyIsValue()})
   * into its Java object.
   *
   * @param buf the body. Borrowed.
   */
  abstract Object decode(ByteBuf buf, int index, int length);

  /**
   * Checks a top-level cell of {@code length > 0} bytes (or {@code >= 0} if {@link
   * #emptyIsValue()}) exactly as {@link #deliver} would, keeping nothing: a cell this accepts is
   * one {@link #decode} decodes without an error. By default it decodes the value and drops it;
   * types whose checks need no decoding override it.
   *
   * @param buf the body. Borrowed.
   */
  void validate(ByteBuf buf, int index, int length) {
    decode(buf, index, length);
  }

  /** The Java object for a nested zero-length value (see {@link RowSink}): null by default. */
  Object decodeEmpty() {
    return null;
  }

  /** A nested element of any length {@code >= 0}, applying the empty policy. */
  final Object decodeElement(ByteBuf buf, int index, int length) {
    if (length == 0 && !emptyIsValue()) {
      return decodeEmpty();
    }
    return decode(buf, index, length);
  }

  final CqlParseException lengthMismatch(int index, int expected, int actual) {
    return CqlParseException.at(
        CqlParseException.Reason.LENGTH_MISMATCH,
        "value",
        index,
        type,
        "expected " + expected + " bytes, got " + actual);
  }

  /** A type without a primitive sink event: the top-level cell goes to {@link RowSink#onObject}. */
  abstract static class ToObject extends ValueDeserializer {
    ToObject(CqlType type) {
      super(type);
    }

    @Override
    final void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      sink.onObject(column, decode(buf, index, length));
    }
  }
}
