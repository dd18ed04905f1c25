package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.value.NotSet;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Deserializers for list, set, map (an [int] count, then [int]-length-prefixed elements), UDT and
 * tuple (successive [int]-length-prefixed fields, possibly fewer than declared). Element lengths
 * follow the one rule of the library: -1 NULL, -2 not set, below -2 invalid, beyond the value
 * truncated. Counts are checked against the bytes present before anything is allocated.
 */
final class CollectionDeserializers {
  private CollectionDeserializers() {}

  /** Reads an element's [int] length at {@code p}, checking it against {@code end}. */
  static int elementLength(ByteBuf buf, int p, int end, CqlType type, String field) {
    if (end - p < 4) {
      throw CqlParseException.at(
          Reason.TRUNCATED, field + " length", p, type, "need 4 bytes, have " + (end - p));
    }
    int len = buf.getInt(p);
    if (len < -2) {
      throw CqlParseException.at(
          Reason.INVALID_LENGTH, field + " length", p, type, len + " (expected: >= -2)");
    }
    if (len > end - p - 4) {
      throw CqlParseException.at(
          Reason.TRUNCATED, field, p + 4, type, "need " + len + " bytes, have " + (end - p - 4));
    }
    return len;
  }

  /** The element whose length was read at {@code p}. */
  static Object element(ValueDeserializer d, ByteBuf buf, int p, int len) {
    if (len == -1) {
      return null;
    }
    if (len == -2) {
      return NotSet.INSTANCE;
    }
    return d.decodeElement(buf, p + 4, len);
  }

  /** Reads and checks a collection's [int] element count. */
  static int count(
      ByteBuf buf, int index, int end, CqlType type, ParseLimits limits, int minBytesPerElement) {
    if (end - index < 4) {
      throw CqlParseException.at(
          Reason.TRUNCATED, "element count", index, type, "need 4 bytes, have " + (end - index));
    }
    int n = buf.getInt(index);
    if (n < 0) {
      throw CqlParseException.at(
          Reason.INVALID_COUNT, "element count", index, type, n + " (expected: >= 0)");
    }
    // the bytes present first: a count they cannot hold is truncated input, whatever the limit
    long need = (long) n * minBytesPerElement;
    if (need > end - index - 4) {
      throw CqlParseException.at(
          Reason.TRUNCATED,
          "element count",
          index,
          type,
          n + " elements need at least " + need + " bytes, have " + (end - index - 4));
    }
    if (n > limits.maxCollectionElements()) {
      throw CqlParseException.at(
          Reason.LIMIT_EXCEEDED,
          "element count",
          index,
          type,
          n
              + " elements, more than "
              + limits.maxCollectionElements()
              + " (ParseLimits.maxCollectionElements)");
    }
    return n;
  }

  static CqlParseException trailing(int p, int end, CqlType type) {
    return CqlParseException.at(
        Reason.TRAILING_BYTES, "value", p, type, (end - p) + " bytes after the last element");
  }

  /** {@code list<T>} and {@code set<T>}: a {@code List} in wire order. */
  static final class ListDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer element;
    private final ParseLimits limits;

    ListDeserializer(CqlType type, ValueDeserializer element, ParseLimits limits) {
      super(type);
      this.element = element;
      this.limits = limits;
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      int end = index + length;
      int n = count(buf, index, end, type, limits, 4);
      List<Object> list = new ArrayList<>(n);
      int p = index + 4;
      for (int i = 0; i < n; i++) {
        int len = elementLength(buf, p, end, type, "element");
        list.add(element(element, buf, p, len));
        p += 4 + Math.max(len, 0);
      }
      if (p != end) {
        throw trailing(p, end, type);
      }
      return Collections.unmodifiableList(list);
    }

    @Override
    Object decodeEmpty() {
      return List.of();
    }
  }

  /** {@code map<K, V>}: a {@code LinkedHashMap} in wire order (unmodifiable view). */
  static final class MapDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer key;
    private final ValueDeserializer value;
    private final ParseLimits limits;

    MapDeserializer(
        CqlType type, ValueDeserializer key, ValueDeserializer value, ParseLimits limits) {
      super(type);
      this.key = key;
      this.value = value;
      this.limits = limits;
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      int end = index + length;
      int n = count(buf, index, end, type, limits, 8);
      Map<Object, Object> map = new LinkedHashMap<>(Math.max(4, (int) (n / 0.75f) + 1));
      int p = index + 4;
      for (int i = 0; i < n; i++) {
        int klen = elementLength(buf, p, end, type, "map key");
        Object k = element(key, buf, p, klen);
        p += 4 + Math.max(klen, 0);
        int vlen = elementLength(buf, p, end, type, "map value");
        map.put(k, element(value, buf, p, vlen));
        p += 4 + Math.max(vlen, 0);
      }
      if (p != end) {
        throw trailing(p, end, type);
      }
      return Collections.unmodifiableMap(map);
    }

    @Override
    Object decodeEmpty() {
      return Map.of();
    }
  }

  /**
   * Fields of a UDT or components of a tuple: up to {@code fields.length} [bytes] values; missing
   * trailing ones are NULL, extra bytes are an error.
   */
  static Object[] readFields(
      ValueDeserializer[] fields, ByteBuf buf, int index, int length, CqlType type) {
    int end = index + length;
    Object[] values = new Object[fields.length];
    int p = index;
    for (int i = 0; i < fields.length && p < end; i++) {
      int len = elementLength(buf, p, end, type, "field");
      values[i] = element(fields[i], buf, p, len);
      p += 4 + Math.max(len, 0);
    }
    if (p != end) {
      throw CqlParseException.at(
          Reason.TRAILING_BYTES,
          "value",
          p,
          type,
          (end - p) + " bytes after the last of " + fields.length + " fields");
    }
    return values;
  }

  /** A user-defined type: a {@link UdtValue}. */
  static final class UdtDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer[] fields;

    UdtDeserializer(UdtType type, ValueDeserializer[] fields) {
      super(type);
      this.fields = fields;
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      return new UdtValue((UdtType) type, readFields(fields, buf, index, length, type));
    }

    @Override
    Object decodeEmpty() {
      return new UdtValue((UdtType) type, new Object[fields.length]);
    }
  }

  /**
   * A tuple: a {@link TupleValue}. Like {@link UdtDeserializer}, it reads its components with
   * {@link CollectionDeserializers#readFields}; the two differ only in the value class they build.
   */
  static final class TupleDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer[] components;

    TupleDeserializer(TupleType type, ValueDeserializer[] components) {
      super(type);
      this.components = components;
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      return new TupleValue((TupleType) type, readFields(components, buf, index, length, type));
    }

    @Override
    Object decodeEmpty() {
      return new TupleValue((TupleType) type, new Object[components.length]);
    }
  }
}
