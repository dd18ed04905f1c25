package io.cqlrows.core;

/** A VOID result (kind 0x0001): the statement returned nothing. */
public record VoidResult() implements CqlResult {
  /** Void. */
  public static final int KIND = 0x0001;

  @Override
  public int kind() {
    return KIND;
  }
}
