from argfaith.cli import main

main()
