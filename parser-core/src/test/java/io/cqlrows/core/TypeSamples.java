package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.set;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vector;

import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * A value of every native type and of types of every {@link CellKind}, for the tests that check the
 * parser and the sinks against {@link CellKind#of}. A new native type needs a sample here ({@link
 * #nativeTypesWithoutSample}).
 */
public final class TypeSamples {
  /**
   * One column type and a value of it.
   *
   * @param type the column type, as the parser reads it from {@code option}
   * @param option the type as {@code [option]} hex
   * @param cell the value's bytes as hex, not empty
   */
  public record Sample(CqlType type, String option, String cell) {
    /** A one-column, one-row body with this value; the caller owns it and releases it. */
    public ByteBuf body() {
      return RowsBodies.singleOption(option, cell);
    }

    /** The same column with an empty (zero-length) cell. */
    public ByteBuf emptyBody() {
      return RowsBodies.singleOption(option, "");
    }

    /** The kind of the type, by the table under test. */
    public CellKind kind() {
      return CellKind.of(type);
    }

    @Override
    public String toString() {
      return type.toString();
    }
  }

  private static final Map<NativeType, String> NATIVE_VALUES = new EnumMap<>(NativeType.class);

  static {
    NATIVE_VALUES.put(NativeType.ASCII, "6869");
    NATIVE_VALUES.put(NativeType.BIGINT, "7fffffffffffffff");
    NATIVE_VALUES.put(NativeType.BLOB, "cafe");
    NATIVE_VALUES.put(NativeType.BOOLEAN, "01");
    NATIVE_VALUES.put(NativeType.COUNTER, "0000000000000102");
    NATIVE_VALUES.put(NativeType.DECIMAL, "0000000001");
    NATIVE_VALUES.put(NativeType.DOUBLE, "40d2fa0800000000");
    NATIVE_VALUES.put(NativeType.FLOAT, "4697d040");
    NATIVE_VALUES.put(NativeType.INT, "0000002a");
    NATIVE_VALUES.put(NativeType.TIMESTAMP, "000001337f62ee79");
    NATIVE_VALUES.put(NativeType.UUID, "49157efcef3c9de31698af801fb40b2a");
    NATIVE_VALUES.put(NativeType.TEXT, "e381bee38197");
    NATIVE_VALUES.put(NativeType.VARINT, "0080");
    NATIVE_VALUES.put(NativeType.TIMEUUID, "af5943a3ea3c11e1ab63c42c032279f0");
    NATIVE_VALUES.put(NativeType.INET, "7f000001");
    NATIVE_VALUES.put(NativeType.DATE, "80000001");
    NATIVE_VALUES.put(NativeType.TIME, "0000000000000001");
    NATIVE_VALUES.put(NativeType.SMALLINT, "8000");
    NATIVE_VALUES.put(NativeType.TINYINT, "7f");
    NATIVE_VALUES.put(NativeType.DURATION, "020406");
  }

  private TypeSamples() {}

  /** The native types that have no sample here. */
  public static List<NativeType> nativeTypesWithoutSample() {
    List<NativeType> missing = new ArrayList<>();
    for (NativeType n : NativeType.values()) {
      if (!NATIVE_VALUES.containsKey(n)) {
        missing.add(n);
      }
    }
    return missing;
  }

  /** A sample of every native type, then of the other types. */
  public static List<Sample> all() {
    List<Sample> samples = new ArrayList<>();
    for (Map.Entry<NativeType, String> e : NATIVE_VALUES.entrySet()) {
      samples.add(sample(opt(e.getKey().optionId()), e.getValue()));
    }
    samples.add(sample(vector("FloatType", 2), "3f800000 40200000"));
    samples.add(sample(vector("DoubleType", 2), "3ff8000000000000 c000000000000000"));
    samples.add(sample(vector("Int32Type", 2), "00000001 ffffffff"));
    samples.add(sample(vector("LongType", 2), "0000000000000001 fffffffffffffffe"));
    // fixed-width elements other than those four, packed: a List
    samples.add(sample(vector("TimestampType", 1), "000001337f62ee79"));
    // counter is a bigint, but length-prefixed inside vectors: a List
    samples.add(sample(vector("CounterColumnType", 1), "08 0000000000000001"));
    samples.add(sample(custom("org.example.Opaque"), "cafe"));
    samples.add(sample(list(opt(0x09)), "00000001 00000004 00000007"));
    samples.add(sample(set(opt(0x09)), "00000002 00000004 00000001 00000004 00000002"));
    samples.add(sample(map(opt(0x0D), opt(0x09)), "00000001 00000001 6b 00000004 00000001"));
    samples.add(sample(udt("ks", "u", "a", opt(0x09)), "00000004 00000005"));
    samples.add(sample(tuple(opt(0x09), opt(0x0D)), "00000004 00000001 ffffffff"));
    return samples;
  }

  private static Sample sample(String option, String cell) {
    RowsCollector rows = new RowsCollector();
    Decoding.read(new ResultReader(4), RowsBodies.singleOption(option, cell), rows, null);
    return new Sample(rows.metadata().columns().get(0).type(), option, cell);
  }
}
