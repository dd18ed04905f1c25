package io.cqlrows.client.live;

import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.ColumnDefinitions;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.data.CqlDuration;
import com.datastax.oss.driver.api.core.data.CqlVector;
import com.datastax.oss.driver.api.core.data.TupleValue;
import com.datastax.oss.driver.api.core.data.UdtValue;
import com.datastax.oss.driver.api.core.type.UserDefinedType;
import io.cqlrows.core.sink.CanonicalJson;
import java.util.Collection;
import java.util.Map;

/**
 * Renders what the Apache Cassandra Java driver decoded as the corpus's canonical JSON ({@code
 * parser-core/src/test/resources/io/cqlrows/corpus/README.md}, "Canonical value rendering"), the
 * same text our {@link io.cqlrows.core.sink.JsonLinesSink} writes, so the two can be compared as
 * JSON trees.
 *
 * <ul>
 *   <li>a NULL top-level cell ({@code row.isNull}): {@code null}; any other cell is {@code
 *       row.getObject(i)}, rendered as follows
 *   <li>JDK scalars (String, numbers, UUID, InetAddress, ByteBuffer, java.time): through {@link
 *       CanonicalJson#appendValue}
 *   <li>{@link UdtValue}: an object, field name ({@code CqlIdentifier.asInternal()}) to value, in
 *       the type's field order; a NULL field ({@code isNull}) is {@code null}, where {@code
 *       getObject} would give an empty collection for a collection field
 *   <li>{@link TupleValue}: an array, one element per component of the type, NULL as for UDTs
 *   <li>{@link CqlVector}, List, Set: an array in iteration (wire) order
 *   <li>Map: an array of {@code [key, value]} pairs in iteration (wire) order
 *   <li>{@link CqlDuration}: a string of its {@code toString()}
 *   <li>a cell the driver cannot decode (it throws): {@code {"driver_error": "<exception>"}}, as
 *       the corpus writes it
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
final class DriverJson {
  private DriverJson() {}

  /** The row as a JSON array aligned with its columns. */
  static String row(Row row) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < row.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      if (row.isNull(i)) {
        out.append("null");
        continue;
      }
      Object value;
      try {
        value = row.getObject(i);
      } catch (RuntimeException e) {
        out.append("{\"driver_error\":");
        CanonicalJson.appendString(out, e.toString());
        out.append('}');
        continue;
      }
      appendValue(out, value);
    }
    return out.append(']').toString();
  }

  /**
   * The columns as our {@code JsonLinesSink} writes them: {@code [{"keyspace":..,"table":..,
   * "name":..,"type":..}]}, the type as {@code DataType.asCql(true, true)}.
   */
  static String columns(ColumnDefinitions columns) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < columns.size(); i++) {
      ColumnDefinition c = columns.get(i);
      out.append(i > 0 ? ",{" : "{").append("\"keyspace\":");
      CanonicalJson.appendString(out, c.getKeyspace().asInternal());
      out.append(",\"table\":");
      CanonicalJson.appendString(out, c.getTable().asInternal());
      out.append(",\"name\":");
      CanonicalJson.appendString(out, c.getName().asInternal());
      out.append(",\"type\":");
      CanonicalJson.appendString(out, c.getType().asCql(true, true));
      out.append('}');
    }
    return out.append(']').toString();
  }

  /** Appends one decoded value, at any nesting level ({@code null} for NULL). */
  static void appendValue(StringBuilder out, Object value) {
    if (value instanceof UdtValue udt) {
      UserDefinedType type = udt.getType();
      out.append('{');
      for (int i = 0; i < type.getFieldNames().size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        CanonicalJson.appendString(out, type.getFieldNames().get(i).asInternal());
        out.append(':');
        appendValue(out, udt.isNull(i) ? null : udt.getObject(i));
      }
      out.append('}');
    } else if (value instanceof TupleValue tuple) {
      out.append('[');
      for (int i = 0; i < tuple.getType().getComponentTypes().size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        appendValue(out, tuple.isNull(i) ? null : tuple.getObject(i));
      }
      out.append(']');
    } else if (value instanceof CqlVector<?> vector) {
      appendElements(out, vector);
    } else if (value instanceof Collection<?> collection) {
      appendElements(out, collection);
    } else if (value instanceof Map<?, ?> map) {
      out.append('[');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(first ? "[" : ",[");
        first = false;
        appendValue(out, e.getKey());
        out.append(',');
        appendValue(out, e.getValue());
        out.append(']');
      }
      out.append(']');
    } else if (value instanceof CqlDuration duration) {
      CanonicalJson.appendString(out, duration.toString());
    } else {
      CanonicalJson.appendValue(out, value);
    }
  }

  private static void appendElements(StringBuilder out, Iterable<?> elements) {
    out.append('[');
    boolean first = true;
    for (Object element : elements) {
      if (!first) {
        out.append(',');
      }
      first = false;
      appendValue(out, element);
    }
    out.append(']');
  }
}
