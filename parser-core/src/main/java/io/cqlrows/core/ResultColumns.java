package io.cqlrows.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The column specs of a ROWS result.
 *
 * <p>Obtained from {@link RowsMetadata#columns()} (or {@link PreparedResult#resultColumns()}) and
 * handed back to {@link ResultReader} for results sent with {@code No_metadata}. A reader compiles
 * the deserializers for an instance once and reuses them for every page and execution that presents
 * the same instance (or equal specs). Immutable and thread-safe.
 */
public final class ResultColumns {
  private final List<ColumnSpec> specs;
  private final Map<String, Integer> indexByName;

  private ResultColumns(List<ColumnSpec> specs) {
    this.specs = List.copyOf(specs);
    Map<String, Integer> byName = new HashMap<>(this.specs.size() * 2);
    for (int i = this.specs.size() - 1; i >= 0; i--) {
      byName.put(this.specs.get(i).name(), i); // first occurrence wins
    }
    this.indexByName = byName;
  }

  /**
   * Columns from specs, e.g. built by hand or kept from a PREPARED result.
   *
   * @param specs the column specs, in order (copied)
   */
  public static ResultColumns of(List<ColumnSpec> specs) {
    return new ResultColumns(specs);
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
