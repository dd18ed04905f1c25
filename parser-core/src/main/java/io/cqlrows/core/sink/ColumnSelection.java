package io.cqlrows.core.sink;

import io.cqlrows.core.ResultColumns;
import java.util.BitSet;
import java.util.List;

/**
 * Which columns a sink wants, by zero-based index or by exact name, resolved against each result's
 * columns. Immutable; shared by the sinks that offer {@code selectColumns}.
 */
final class ColumnSelection {
  static final ColumnSelection ALL = new ColumnSelection(null, null);

  private final BitSet indexes;
  private final List<String> names;

  private ColumnSelection(BitSet indexes, List<String> names) {
    this.indexes = indexes;
    this.names = names;
  }

  /**
   * Columns by index; indexes past a result's last column are ignored.
   *
   * @throws IllegalArgumentException if an index is negative
   */
  static ColumnSelection ofIndexes(int... columnIndexes) {
    BitSet selected = new BitSet();
    for (int index : columnIndexes) {
      if (index < 0) {
        throw new IllegalArgumentException("column index: " + index + " (expected: >= 0)");
      }
      selected.set(index);
    }
    return new ColumnSelection(selected, null);
  }

  /** Columns by exact name (internal form); names a result does not have are ignored. */
  static ColumnSelection ofNames(String... names) {
    return new ColumnSelection(null, List.of(names));
  }

  /** The selected columns of a result, or {@code null} for all of them. */
  BitSet resolve(ResultColumns columns) {
    if (names == null) {
      return indexes == null ? null : (BitSet) indexes.clone();
    }
    BitSet selected = new BitSet();
    for (int i = 0; i < columns.size(); i++) {
      if (names.contains(columns.get(i).name())) {
        selected.set(i);
      }
    }
    return selected;
  }
}
