// advisor_odr_check's main where the CLI is not built (ADVISOR_WITH_TORCH=OFF): the check is the
// link itself (cmake/OdrCheck.cmake).
int main() { return 0; }
