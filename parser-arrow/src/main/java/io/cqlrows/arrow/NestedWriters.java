package io.cqlrows.arrow;

import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;

/** The writers of types with children: lists, sets, maps, UDTs, tuples, boxed vectors. */
final class NestedWriters {
  private NestedWriters() {}

  /** list and set: a {@code List} in wire order. */
  static final class ListWriter extends ValueWriter {
    private final ListVector v;
    private final ValueWriter element;

    ListWriter(ListVector v, ValueWriter element) {
      super(v);
      this.v = v;
      this.element = element;
    }

    @Override
    void write(int index, Object value) {
      int start = v.startNewValue(index);
      int n = 0;
      for (Object e : (Collection<?>) value) {
        element.writeValue(start + n++, e);
      }
      v.endValue(index, n);
    }
  }

  /** map: a {@code Map} in wire order, into entries of {@code key} and {@code value}. */
  static final class MapWriter extends ValueWriter {
    private final MapVector v;
    private final StructVector entries;
    private final ValueWriter key;
    private final ValueWriter value;

    MapWriter(MapVector v, ValueWriter key, ValueWriter value) {
      super(v);
      this.v = v;
      this.entries = (StructVector) v.getDataVector();
      this.key = key;
      this.value = value;
    }

    @Override
    void write(int index, Object map) {
      int start = v.startNewValue(index);
      int n = 0;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) map).entrySet()) {
        if (e.getKey() == null || e.getKey() == io.cqlrows.core.value.NotSet.INSTANCE) {
          throw new Unrepresentable(ArrowMappingException.Reason.NULL_MAP_KEY, null);
        }
        entries.setIndexDefined(start + n);
        key.write(start + n, e.getKey());
        value.writeValue(start + n, e.getValue());
        n++;
      }
      v.endValue(index, n);
    }
  }

  /** UDT and tuple: a struct with a child per field; fields a value lacks are null. */
  static final class StructWriter extends ValueWriter {
    private final StructVector v;
    private final ValueWriter[] fields;

    StructWriter(StructVector v, ValueWriter[] fields) {
      super(v);
      this.v = v;
      this.fields = fields;
    }

    @Override
    void write(int index, Object value) {
      v.setIndexDefined(index);
      List<Object> values =
          value instanceof UdtValue u ? u.values() : ((TupleValue) value).values();
      for (int i = 0; i < fields.length; i++) {
        fields[i].writeValue(index, i < values.size() ? values.get(i) : null);
      }
    }

    @Override
    void writeNull(int index) {
      v.setNull(index);
      for (ValueWriter f : fields) {
        f.writeNull(index);
      }
    }
  }

  /**
   * {@code vector<T, N>} of any element type, boxed: a {@code List} of N elements, or the primitive
   * array of a nested float, double, int or bigint vector.
   */
  static final class FixedListWriter extends ValueWriter {
    private final FixedSizeListVector v;
    private final ValueWriter element;
    private final int dimension;

    FixedListWriter(FixedSizeListVector v, ValueWriter element) {
      super(v);
      this.v = v;
      this.element = element;
      this.dimension = v.getListSize();
    }

    @Override
    void write(int index, Object value) {
      int start = v.startNewValue(index);
      if (value instanceof List<?> list) {
        for (int i = 0; i < dimension; i++) {
          element.writeValue(start + i, list.get(i));
        }
      } else if (value instanceof float[] a) {
        for (int i = 0; i < dimension; i++) {
          element.onFloat(start + i, a[i]);
        }
      } else if (value instanceof double[] a) {
        for (int i = 0; i < dimension; i++) {
          element.onDouble(start + i, a[i]);
        }
      } else if (value instanceof int[] a) {
        for (int i = 0; i < dimension; i++) {
          element.onInt(start + i, a[i]);
        }
      } else {
        long[] a = (long[]) value;
        for (int i = 0; i < dimension; i++) {
          element.onBigint(start + i, a[i]);
        }
      }
    }

    @Override
    void writeNull(int index) {
      v.setNull(index);
      for (int i = 0; i < dimension; i++) {
        element.writeNull(index * dimension + i);
      }
    }
  }
}
