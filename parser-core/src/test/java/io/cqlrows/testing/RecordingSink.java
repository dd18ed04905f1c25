package io.cqlrows.testing;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Records every sink event as a short string, for assertions on event order and content. */
public final class RecordingSink implements RowSink {
  private final List<String> events = new ArrayList<>();

  /** The events so far, e.g. {@code "start 2"}, {@code "row 0"}, {@code "0:int 1"}. */
  public List<String> events() {
    return events;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    events.add("start " + rowCount);
  }

  @Override
  public void onResultEnd(int rowCount) {
    events.add("end " + rowCount);
  }

  @Override
  public void onRowStart(int row) {
    events.add("row " + row);
  }

  @Override
  public void onRowEnd(int row) {
    events.add("/row " + row);
  }

  @Override
  public void onNull(int column) {
    events.add(column + ":null");
  }

  @Override
  public void onNotSet(int column) {
    events.add(column + ":notset");
  }

  @Override
  public void onEmpty(int column) {
    events.add(column + ":empty");
  }

  @Override
  public void onObject(int column, Object value) {
    String s = value instanceof Object[] a ? Arrays.deepToString(a) : String.valueOf(value);
    events.add(column + ":object " + s);
  }

  @Override
  public void onBoolean(int column, boolean value) {
    events.add(column + ":boolean " + value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    events.add(column + ":tinyint " + value);
  }

  @Override
  public void onSmallint(int column, short value) {
    events.add(column + ":smallint " + value);
  }

  @Override
  public void onInt(int column, int value) {
    events.add(column + ":int " + value);
  }

  @Override
  public void onBigint(int column, long value) {
    events.add(column + ":bigint " + value);
  }

  @Override
  public void onFloat(int column, float value) {
    events.add(column + ":float " + value);
  }

  @Override
  public void onDouble(int column, double value) {
    events.add(column + ":double " + value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    events.add(column + ":timestamp " + epochMillis);
  }

  @Override
  public void onDate(int column, int epochDays) {
    events.add(column + ":date " + epochDays);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    events.add(column + ":time " + nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    events.add(column + ":uuid " + new java.util.UUID(mostSigBits, leastSigBits));
  }

  @Override
  public void onString(int column, String value) {
    events.add(column + ":string " + value);
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    events.add(column + ":blob " + ByteBufUtil.hexDump(value));
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    events.add(column + ":floatvector " + Arrays.toString(value.toArray()));
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    events.add(column + ":doublevector " + Arrays.toString(value.toArray()));
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    events.add(column + ":intvector " + Arrays.toString(value.toArray()));
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    events.add(column + ":longvector " + Arrays.toString(value.toArray()));
  }
}
