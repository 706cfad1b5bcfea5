# DTS_REQUIRE_LIB(VAR, HEADER, LIB, FUNCTION, DEBIAN-PACKAGE)
# Check for HEADER and FUNCTION in -lLIB; set VAR_LIBS; fail naming the
# Debian package that provides them.
AC_DEFUN([DTS_REQUIRE_LIB], [
  AC_CHECK_HEADER([$2], [],
    [AC_MSG_ERROR([$2 not found: apt-get install $5])])
  dts_save_LIBS=$LIBS
  AC_CHECK_LIB([$3], [$4], [$1_LIBS=-l$3],
    [AC_MSG_ERROR([lib$3 not found: apt-get install $5])])
  LIBS=$dts_save_LIBS
  AC_SUBST([$1_LIBS])
])
