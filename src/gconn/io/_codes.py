"""The byte-level parsers' status codes and value kinds (:mod:`gconn.io._kernels` returns them)."""

OK = 0
BAD_FIELD = 1      # a field that must be a non-negative integer is not one
TOO_FEW = 2        # fewer fields on the line than required
NEGATIVE = 3       # a vertex id with a minus sign
OVERFLOW = 4       # an integer beyond int64
OUT_OF_RANGE = 5   # an id outside [base, base + limit)
TOO_MANY = 6       # more records than the file declares
ODD_PAIRS = 7      # METIS with edge weights: a neighbour without its weight
EXTRA_FIELDS = 8   # an edge-list line with more fields than the file's lines have
BAD_EXTRA = 9      # a field besides the ids that must be a number is not one
EMPTY_FIELD = 10   # nothing between two delimiters
BAD_OP = 11        # an update log's line that does not start with an operation (+ - ?)

# Value kinds of a Matrix Market entry
VALUE_INTEGER = 0
VALUE_REAL = 1
# ... or a comma for the decimal point, as ';'-separated files from European spreadsheets write it
VALUE_REAL_COMMA = 2
