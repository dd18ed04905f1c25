package io.cqlrows.core;

import java.util.List;

/** Builds {@link RowsMetadata} for sink tests, whose constructor is package-private. */
public final class TestMetadata {
  private TestMetadata() {}

  /**
   * Metadata with {@code Global_tables_spec} set, no paging state and no new metadata id.
   *
   * @param specs the columns
   */
  public static RowsMetadata of(ColumnSpec... specs) {
    return new RowsMetadata(0x0001, specs.length, null, null, ResultColumns.of(List.of(specs)));
  }
}
