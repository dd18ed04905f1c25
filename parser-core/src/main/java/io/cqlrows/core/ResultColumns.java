package io.cqlrows.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The columns of a ROWS result together with the deserializers compiled for them, once.
 *
 * <p>Obtained from {@link RowsMetadata#columns()} (or {@link PreparedResult#resultColumns()}) and
 * handed back to {@link ResultReader} for results sent with {@code No_metadata}, so that the
 * deserializers of a prepared statement are built once and reused for every execution and page.
 * Immutable and thread-safe.
 */
public final class ResultColumns {
  private final List<ColumnSpec> specs;
  private final Map<String, Integer> indexByName;
  final ValueDeserializer[] deserializers;
  final ParseLimits limits;

  private ResultColumns(List<ColumnSpec> specs, ParseLimits limits) {
    this.specs = List.copyOf(specs);
    this.limits = limits;
    this.deserializers = DeserializerFactory.forColumns(this.specs, limits);
    Map<String, Integer> byName = new HashMap<>(this.specs.size() * 2);
    for (int i = this.specs.size() - 1; i >= 0; i--) {
      byName.put(this.specs.get(i).name(), i); // first occurrence wins
    }
    this.indexByName = byName;
  }

  /**
   * Compiles deserializers for these columns.
   *
   * @param specs the column specs, e.g. from a PREPARED result
   * @param limits the limits the deserializers enforce on values
   */
  public static ResultColumns of(List<ColumnSpec> specs, ParseLimits limits) {
    return new ResultColumns(specs, limits);
  }

  /** Compiles deserializers for these columns with {@link ParseLimits#defaults()}. */
  public static ResultColumns of(List<ColumnSpec> specs) {
    return new ResultColumns(specs, ParseLimits.defaults());
  }

  /** The column specs in order (unmodifiable). */
  public List<ColumnSpec> specs() {
    return specs;
  }

  /** Number of columns. */
  public int size() {
    return specs.size();
  }

  /** Column {@code i}. */
  public ColumnSpec get(int i) {
    return specs.get(i);
  }

  /** Index of the first column with this exact name, or -1. */
  public int indexOf(String name) {
    Integer i = indexByName.get(name);
    return i == null ? -1 : i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResultColumns r && specs.equals(r.specs);
  }

  @Override
  public int hashCode() {
    return specs.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < specs.size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(specs.get(i).name()).append(' ').append(specs.get(i).type());
    }
    return sb.append(']').toString();
  }
}
