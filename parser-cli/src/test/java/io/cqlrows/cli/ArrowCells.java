package io.cqlrows.cli;

import com.datastax.oss.driver.api.core.type.DataType;
import com.datastax.oss.driver.api.core.type.DataTypes;
import com.datastax.oss.driver.api.core.type.ListType;
import com.datastax.oss.driver.api.core.type.MapType;
import com.datastax.oss.driver.api.core.type.SetType;
import com.datastax.oss.driver.api.core.type.TupleType;
import com.datastax.oss.driver.api.core.type.UserDefinedType;
import com.datastax.oss.driver.api.core.type.VectorType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.cqlrows.core.value.CqlDuration;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.HexFormat;
import java.util.UUID;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.ExtensionTypeVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.holders.NullableIntervalMonthDayNanoHolder;

/**
 * Renders a slot of an Arrow vector that {@code cqlrows query --format arrow} wrote back into the
 * canonical JSON of its CQL value (the rendering of {@code --format jsonl}), so that the two
 * outputs can be compared cell by cell. The CQL type, from the Java driver's column definitions,
 * tells apart what one Arrow type holds for several CQL types (Binary: blob or inet; Struct: UDT or
 * tuple). Each Arrow value maps back as {@code ArrowMapping} maps it there: Int64 to a quoted
 * decimal, floats to a quoted {@code Float.toString}, Timestamp(ms) to {@code Instant}, Date32 to
 * {@code LocalDate}, Time64(ns) to {@code LocalTime}, Interval(MONTH_DAY_NANO) to a duration, Map
 * to {@code [key, value]} pairs. Stateless.
 */
final class ArrowCells {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ArrowCells() {}

  /** Slot {@code i} of {@code vector}, of CQL type {@code type}, as canonical JSON. */
  static JsonNode json(ValueVector vector, int i, DataType type) {
    if (vector.isNull(i)) {
      return NullNode.getInstance();
    }
    ValueVector v = vector instanceof ExtensionTypeVector<?> e ? e.getUnderlyingVector() : vector;
    if (v instanceof BitVector b) {
      return BooleanNode.valueOf(b.get(i) != 0);
    } else if (v instanceof TinyIntVector t) {
      return IntNode.valueOf(t.get(i));
    } else if (v instanceof SmallIntVector s) {
      return IntNode.valueOf(s.get(i));
    } else if (v instanceof IntVector n) {
      return IntNode.valueOf(n.get(i));
    } else if (v instanceof BigIntVector l) {
      return TextNode.valueOf(Long.toString(l.get(i)));
    } else if (v instanceof Float4Vector f) {
      return TextNode.valueOf(Float.toString(f.get(i)));
    } else if (v instanceof Float8Vector d) {
      return TextNode.valueOf(Double.toString(d.get(i)));
    } else if (v instanceof VarCharVector s) {
      return TextNode.valueOf(new String(s.get(i), StandardCharsets.UTF_8));
    } else if (v instanceof VarBinaryVector b) {
      return type.equals(DataTypes.INET)
          ? TextNode.valueOf(inet(b.get(i)))
          : TextNode.valueOf("0x" + HexFormat.of().formatHex(b.get(i)));
    } else if (v instanceof TimeStampMilliTZVector t) {
      return TextNode.valueOf(Instant.ofEpochMilli(t.get(i)).toString());
    } else if (v instanceof DateDayVector d) {
      return TextNode.valueOf(LocalDate.ofEpochDay(d.get(i)).toString());
    } else if (v instanceof TimeNanoVector t) {
      return TextNode.valueOf(LocalTime.ofNanoOfDay(t.get(i)).toString());
    } else if (v instanceof FixedSizeBinaryVector u && u.getByteWidth() == 16) {
      ByteBuffer bytes = ByteBuffer.wrap(u.get(i));
      return TextNode.valueOf(new UUID(bytes.getLong(), bytes.getLong()).toString());
    } else if (v instanceof IntervalMonthDayNanoVector d) {
      NullableIntervalMonthDayNanoHolder h = new NullableIntervalMonthDayNanoHolder();
      d.get(i, h);
      return TextNode.valueOf(new CqlDuration(h.months, h.days, h.nanoseconds).toString());
    } else if (v instanceof MapVector m) { // before ListVector, which it extends
      MapType map = (MapType) type;
      StructVector entries = (StructVector) m.getDataVector();
      ArrayNode out = NODES.arrayNode();
      for (int k = m.getElementStartIndex(i); k < m.getElementEndIndex(i); k++) {
        out.add(
            NODES
                .arrayNode()
                .add(json(entries.getChild("key"), k, map.getKeyType()))
                .add(json(entries.getChild("value"), k, map.getValueType())));
      }
      return out;
    } else if (v instanceof ListVector l) {
      DataType element =
          type instanceof ListType lt ? lt.getElementType() : ((SetType) type).getElementType();
      ArrayNode out = NODES.arrayNode();
      for (int k = l.getElementStartIndex(i); k < l.getElementEndIndex(i); k++) {
        out.add(json(l.getDataVector(), k, element));
      }
      return out;
    } else if (v instanceof FixedSizeListVector l) {
      DataType element = ((VectorType) type).getElementType();
      ArrayNode out = NODES.arrayNode();
      int size = l.getListSize();
      for (int k = i * size; k < (i + 1) * size; k++) {
        out.add(json(l.getDataVector(), k, element));
      }
      return out;
    } else if (v instanceof StructVector s) {
      return struct(s, i, type);
    }
    throw new AssertionError(
        "no JSON rendering for "
            + v.getClass().getSimpleName()
            + " ("
            + type.asCql(true, true)
            + ")");
  }

  /** A UDT as an object of its fields, a tuple as an array of its components. */
  private static JsonNode struct(StructVector s, int i, DataType type) {
    if (type instanceof UserDefinedType udt) {
      ObjectNode out = NODES.objectNode();
      for (int f = 0; f < udt.getFieldNames().size(); f++) {
        String name = udt.getFieldNames().get(f).asInternal();
        FieldVector child = s.getChild(name);
        if (child == null) {
          throw new AssertionError("no Arrow child " + name + " in " + s.getField());
        }
        out.set(name, json(child, i, udt.getFieldTypes().get(f)));
      }
      return out;
    }
    TupleType tuple = (TupleType) type;
    ArrayNode out = NODES.arrayNode();
    for (int c = 0; c < tuple.getComponentTypes().size(); c++) {
      out.add(json(s.getChild(Integer.toString(c)), i, tuple.getComponentTypes().get(c)));
    }
    return out;
  }

  private static String inet(byte[] address) {
    try {
      return InetAddress.getByAddress(address).getHostAddress();
    } catch (UnknownHostException e) {
      throw new AssertionError("not an address: " + address.length + " bytes", e);
    }
  }
}
