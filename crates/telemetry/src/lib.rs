//! Engine log lines and their envelope.
