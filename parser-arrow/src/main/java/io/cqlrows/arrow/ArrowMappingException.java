package io.cqlrows.arrow;

import io.cqlrows.core.CqlException;

/**
 * A value that the chosen {@link ArrowMapping} cannot represent in Arrow: a decimal that does not
 * fit Decimal128 at the chosen scale, or a map entry with a NULL key (Arrow map keys are never
 * null). Thrown by {@link ArrowSink} from the sink event, so the parse of that result stops there
 * and the exception reaches the caller of the parser unchanged.
 */
public final class ArrowMappingException extends CqlException {
  private static final long serialVersionUID = 1L;

  /** What the mapping could not represent. */
  public enum Reason implements CqlException.Reason {
    /** A decimal with more fractional digits than the scale, under {@code UNNECESSARY}. */
    DECIMAL_SCALE,
    /** A decimal that needs more than 38 digits at the chosen scale. */
    DECIMAL_PRECISION,
    /** A map entry whose key is NULL. */
    NULL_MAP_KEY
  }

  private final Reason reason;
  private final int row;
  private final int column;
  private final String columnName;
  private final String value;

  ArrowMappingException(Reason reason, int row, int column, String columnName, String value) {
    super(null, null);
    this.reason = reason;
    this.row = row;
    this.column = column;
    this.columnName = columnName;
    this.value = value;
  }

  @Override
  public Reason reason() {
    return reason;
  }

  /** The row within its result, zero-based. */
  public int row() {
    return row;
  }

  /** The column, zero-based. */
  public int column() {
    return column;
  }

  /** The column's name. */
  public String columnName() {
    return columnName;
  }

  /** The value that did not fit, as text; {@code null} for a NULL map key. */
  public String value() {
    return value;
  }

  @Override
  public String getMessage() {
    String what =
        switch (reason) {
          case DECIMAL_SCALE -> "decimal " + value + " has more fractional digits than the scale";
          case DECIMAL_PRECISION -> "decimal " + value + " needs more than 38 digits";
          case NULL_MAP_KEY -> "a map entry has a NULL key, which Arrow maps cannot hold";
        };
    return what + " (row " + row + ", column " + column + " '" + columnName + "')";
  }
}
