#!/bin/sh
# pytest tests/: each test is a function; the runner reports like pytest.
. ./inventory/stock.sh
test_remaining() { [ "$(remaining 10 3)" = 7 ]; }
test_oversold() { ! remaining 1 2 2>/dev/null; }
failed=0
for t in test_remaining test_oversold; do
  if $t; then echo "tests/test_stock.sh::$t PASSED"; else echo "tests/test_stock.sh::$t FAILED"; failed=1; fi
done
echo "python $PYTHON_VERSION: done"
exit $failed
