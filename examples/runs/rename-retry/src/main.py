def hello(name):
    print('hi', name)

greet('world')
